import { writeFile } from 'node:fs/promises';
import { isRef } from '../../pdf/qpdf-json.js';
import type { EditContext } from './document-info.js';
import { MAX_XMP_BYTES } from './document-info.js';
import { DocumentEditError } from './errors.js';
import { PdfObjects } from './pdf-objects.js';
import { XmlSyntaxError } from './xml.js';
import { XmpPacket } from './xmp-packet.js';
import { addCustomProperties, checkNamespace, type XmpNamespaceDefinition, type XmpPropertyDefinition } from './xmp-schema.js';

/**
 * The document's XMP metadata stream (ISO 32000-1 §14.3.2): replaced by a packet the caller
 * supplies, or extended with custom properties. The stream is written unfiltered, as PDF/A expects
 * (qpdf never compresses /Metadata streams).
 */

/** Reads XML meant as a packet; invalidOption explains what is wrong with it. */
export function parsePacket(bytes: Buffer): XmpPacket {
  try {
    const packet = XmpPacket.parse(bytes);
    packet.ensureWrapper();
    return packet;
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw new DocumentEditError('invalidOption', `not well-formed XML: ${error.message}`);
    throw error;
  }
}

/** Replaces the document's XMP packet. */
export async function replaceXmp(input: string, output: string, packet: XmpPacket, context: EditContext): Promise<void> {
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch);
  await writePacket(objects, output, packet, context);
}

/**
 * Adds custom properties under one namespace to the document's packet (a new packet when it has
 * none), with their PDF/A extension schema description.
 */
export async function addXmpProperties(input: string, output: string, namespace: XmpNamespaceDefinition, properties: XmpPropertyDefinition[], context: EditContext): Promise<void> {
  checkNamespace(namespace);
  const objects = await PdfObjects.open(context.qpdf, input, context.call, context.scratch);
  const { dict: catalog } = await objects.catalog();
  const ref = catalog['/Metadata'];
  let packet = XmpPacket.create();
  if (isRef(ref)) {
    const stream = await objects.streamBytes(ref, MAX_XMP_BYTES);
    if (stream) {
      try {
        packet = XmpPacket.parse(stream.data);
      } catch (error) {
        if (error instanceof XmlSyntaxError || error instanceof DocumentEditError) {
          throw new DocumentEditError('damaged', `The document's XMP metadata cannot be extended: ${error.message}. Replace it with dataFormat "xml".`);
        }
        throw error;
      }
    }
  }
  addCustomProperties(packet, namespace, properties);
  await writePacket(objects, output, packet, context);
}

async function writePacket(objects: PdfObjects, output: string, packet: XmpPacket, context: EditContext): Promise<void> {
  const update = objects.update();
  const file = context.scratch('xmp');
  await writeFile(file, packet.toBuffer());
  const { ref: catalogRef, dict: catalog } = await objects.catalog();
  const existing = catalog['/Metadata'];
  const dict = { '/Type': '/Metadata', '/Subtype': '/XML' };
  if (isRef(existing) && (await objects.resolve(existing)) !== undefined) update.setStream(existing, dict, file);
  else update.set(catalogRef, { ...catalog, '/Metadata': update.addStream(dict, file) });
  await objects.commit(update, output);
}
