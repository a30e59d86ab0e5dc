import { QuireError } from '../../../core/errors.js';
import { addXmpProperties, DocumentEditError, editContext, parsePacket, parseXmpJson, replaceXmp } from '../../../engines/pdf-edit/document/index.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxOperation } from '../operation.js';
import { defaultsOf } from '../../option-schema.js';
import { xmpOptions, type XmpOptions } from './xmp.schema.js';

/** Without `namespace` (xml: nothing to check against the packet): its defaults. */
const NO_NAMESPACE = defaultsOf(xmpOptions.properties.namespace);

/**
 * `xmp`: XMP metadata from Base64 `data`. `json` (webPDF's format): an array of property
 * definitions added under `namespace` to the document's packet (created when there is none), with
 * the PDF/A extension schema that describes them. `xml`: a complete packet that replaces the
 * document's; it must be well-formed XMP, and a given `namespaceURI` must occur in it.
 */
export const xmpOperation: ToolboxOperation<XmpOptions> = {
  name: 'xmp',
  needsPdf: true,
  async run(input, options, context, field) {
    const data = decodeFileData(options.data, `${field}.data`);
    const output = context.scratch('pdf');
    const edit = editContext({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs, deadline: context.deadline, scratch: context.scratch });
    const { namespace } = options;
    try {
      if (options.dataFormat === 'xml') {
        const packet = inField(`${field}.data.value: `, () => parsePacket(data));
        const uri = (namespace ?? NO_NAMESPACE).namespaceURI;
        if (uri !== '' && !packet.declaresNamespace(uri)) {
          throw new QuireError('PARAMETER', `Invalid parameter ${field}.namespace.namespaceURI: the XMP packet in ${field}.data does not use the namespace "${uri}".`);
        }
        await replaceXmp(input.path, output, packet, edit);
      } else {
        if (!namespace) throw new QuireError('PARAMETER', `Invalid parameter ${field}.namespace: required for dataFormat "json".`);
        const properties = inField(`${field}.data.value`, () => parseXmpJson(data.toString('utf8')), true);
        const definition = { uri: namespace.namespaceURI, prefix: namespace.namespacePrefix, name: namespace.namespaceName };
        await inFieldAsync(`${field}.namespace.`, () => addXmpProperties(input.path, output, definition, properties, edit));
      }
    } catch (error) {
      if (error instanceof DocumentEditError && error.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${field}: ${error.message}`);
      throw error;
    }
    return { path: output, type: input.type };
  },
};

/** Runs `work`; an invalid value it reports becomes -14 naming `prefix` (a member path). */
function inField<T>(prefix: string, work: () => T, pathLike = false): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof DocumentEditError && error.kind === 'invalidOption') {
      // "[0].propertyName: …" continues the member path; other messages follow a colon.
      const joined = pathLike && error.message.startsWith('[') ? `${prefix}${error.message}` : `${pathLike ? `${prefix}: ` : prefix}${error.message}`;
      throw new QuireError('PARAMETER', `Invalid parameter ${joined}`);
    }
    throw error;
  }
}

async function inFieldAsync<T>(prefix: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DocumentEditError && error.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${prefix}${error.message}`);
    throw error;
  }
}
