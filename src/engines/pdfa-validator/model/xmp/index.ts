/**
 * The XMP part of the PDF/A validator's document model: the objects with veraPDF's XMP types
 * (PDMetadata, XMPPackage/MainXMPPackage, PDFAIdentification, XMPProperty, ExtensionSchema*) read from
 * the document's metadata streams. See README.md in this folder for the types and properties.
 */
import type { CosDocument, CosStream, CosValue } from '../../cos/index.js';
import type { PropertyValue } from '../../expression/value.js';
import type { ModelObject } from '../../profile/model.js';
import { readExtensionSchemas } from './extension.js';
import { cosInfoValues } from './info.js';
import { packetFacts } from './packet.js';
import { parseRdf, type XmpProperty } from './rdf.js';
import { NS, predefinedType, type StructDef } from './schemas.js';
import { valueHasType } from './value-types.js';

/** The veraPDF types this folder implements (a rule on any other type is not-checked). */
export const XMP_TYPES: readonly string[] = [
  'PDMetadata',
  'XMPPackage',
  'MainXMPPackage',
  'PDFAIdentification',
  'XMPProperty',
  'ExtensionSchemasContainer',
  'ExtensionSchemaObject',
  'ExtensionSchemaDefinition',
  'ExtensionSchemaProperty',
  'ExtensionSchemaValueType',
  'ExtensionSchemaField',
  'CosInfo',
];

export interface XmpModelLimits {
  /** A metadata stream whose decoded data is larger is not read (its objects are not-checked). */
  maxPacketBytes: number;
  /** Metadata streams read per document besides the catalog's. */
  maxPackets: number;
}

export const DEFAULT_XMP_MODEL_LIMITS: XmpModelLimits = { maxPacketBytes: 16 * 1024 * 1024, maxPackets: 1000 };

export interface XmpModelOptions {
  /**
   * The XMP Specification edition value types are checked against: 2004 for PDF/A-1 (ISO 19005-1
   * refers to it), 2005 for PDF/A-2 and -3. A few types differ (photoshop:SupplementalCategories is Text in
   * 2004, Bag Text in 2005). Unset: from the main packet's pdfaid:part (1 → 2004, else 2005); a validator
   * that knows the profile's part should pass it.
   */
  edition?: 2004 | 2005;
  limits?: XmpModelLimits;
}

type Values = Record<string, PropertyValue>;

/**
 * A model object with exactly these properties (any other name is not implemented); `path` says where it
 * is for reports (model/index.ts objectPath reads it), e.g. `7 0 obj (XMP)/dc:title`.
 */
export function valuesObject(types: readonly string[], values: Values, path?: string): ModelObject & { readonly path?: string } {
  return {
    types,
    ...(path === undefined ? {} : { path }),
    has: (name) => Object.hasOwn(values, name),
    get: (name) => (Object.hasOwn(values, name) ? values[name] : null),
  };
}

/** The XMP model objects of the document: the catalog's metadata stream and every other object's /Metadata. */
export function xmpObjects(doc: CosDocument, options: XmpModelOptions = {}): ModelObject[] {
  const limits = options.limits ?? DEFAULT_XMP_MODEL_LIMITS;
  const out: ModelObject[] = [];
  const catalogMetadata = streamOf(doc, doc.get(doc.catalog ?? undefined, 'Metadata'));
  const main = catalogMetadata === undefined ? undefined : readPackage(doc, catalogMetadata, limits);
  const mainDefined = main?.extensions.properties;
  const declaredPart = main === undefined ? undefined : identification(main.rdf.properties)?.part;
  const edition = options.edition ?? (declaredPart === 1 ? 2004 : 2005);
  const catalogRef = doc.catalog?.entries.get('Metadata');
  const mainPath = catalogRef?.kind === 'ref' ? `${catalogRef.num} ${catalogRef.gen} obj` : 'catalog/Metadata';
  if (catalogMetadata !== undefined) emit(doc, catalogMetadata, mainPath, main, true, undefined, edition, out);
  // The Info dictionary is compared with the main packet (ISO 19005-1 6.7.3): without a readable main packet there is nothing to compare with.
  if (doc.get(doc.trailer, 'Info')?.kind === 'dict')
    out.push(valuesObject(['CosInfo'], main === undefined && catalogMetadata !== undefined ? {} : cosInfoValues(doc, main?.rdf.properties ?? []), 'trailer/Info'));
  for (const { stream: other, path } of otherMetadataStreams(doc, catalogMetadata, limits.maxPackets)) {
    emit(doc, other, path, readPackage(doc, other, limits, main?.extensions.structs), false, mainDefined, edition, out);
  }
  return out;
}

type Package = NonNullable<ReturnType<typeof readPackage>>;

function readPackage(doc: CosDocument, stream: CosStream, limits: XmpModelLimits, inherited?: ReadonlyMap<string, StructDef>) {
  const decoded = doc.decodeStream(stream);
  if (!decoded.ok || decoded.data.length > limits.maxPacketBytes) return undefined;
  const facts = packetFacts(decoded.data);
  const rdf = parseRdf(facts.text);
  const extensions = readExtensionSchemas(rdf.properties, inherited);
  return { facts, rdf, extensions };
}

function emit(
  doc: CosDocument,
  stream: CosStream,
  path: string,
  pkg: Package | undefined,
  isMain: boolean,
  mainDefined: Map<string, Map<string, string>> | undefined,
  edition: 2004 | 2005,
  out: ModelObject[],
): void {
  const filters = doc.resolve(stream.dict.entries.get('Filter'));
  const filterNames =
    filters?.kind === 'name'
      ? [filters.value]
      : filters?.kind === 'array'
        ? filters.items
            .map((f) => doc.resolve(f))
            .filter((f) => f?.kind === 'name')
            .map((f) => (f as { value: string }).value)
        : [];
  out.push(valuesObject(['PDMetadata'], { isCatalogMetadata: isMain, Filter: filterNames.length > 0 ? filterNames.join(' ') : null }, path));
  const xmp = `${path} (XMP)`;
  const packageTypes = isMain ? ['MainXMPPackage', 'XMPPackage'] : ['XMPPackage'];
  if (pkg === undefined || pkg.rdf.limitHit) {
    // Not decodable, too large, or not read whole (a limit): nothing about it is known for sure, so every
    // rule on it is not-checked, never failed or passed on part of it.
    out.push(valuesObject(packageTypes, {}, xmp));
    return;
  }
  const { facts, rdf, extensions } = pkg;
  const packageValues: Values = { bytes: facts.bytes, encoding: facts.encoding, actualEncoding: facts.actualEncoding, isSerializationValid: rdf.serializationValid };
  if (isMain) packageValues.containsPDFAIdentification = rdf.properties.some((p) => p.namespace === NS.pdfaid && (p.name === 'part' || p.name === 'conformance'));
  out.push(valuesObject(packageTypes, packageValues, xmp));
  if (isMain) {
    const id = identification(rdf.properties);
    if (id !== undefined) out.push(valuesObject(['PDFAIdentification'], id, `${xmp}/pdfaid`));
  }
  for (const p of rdf.properties) out.push(valuesObject(['XMPProperty'], propertyValues(p, extensions, mainDefined, edition), `${xmp}/${p.prefix}:${p.name}`));
  for (const o of extensions.objects) out.push(valuesObject(o.types, o.values, `${xmp}/pdfaExtension:schemas`));
}

function propertyValues(p: XmpProperty, extensions: ReturnType<typeof readExtensionSchemas>, mainDefined: Map<string, Map<string, string>> | undefined, edition: 2004 | 2005): Values {
  const t2004 = predefinedType(p.namespace, p.name, 2004);
  const t2005 = predefinedType(p.namespace, p.name, 2005);
  const currentType = extensions.properties.get(p.namespace)?.get(p.name);
  const mainType = mainDefined?.get(p.namespace)?.get(p.name);
  const type = (edition === 2004 ? t2004 : t2005) ?? currentType ?? mainType;
  return {
    name: p.name,
    prefix: p.prefix,
    namespaceURI: p.namespace,
    isPredefinedInXMP2004: t2004 !== undefined,
    isPredefinedInXMP2005: t2005 !== undefined,
    isDefinedInCurrentPackage: currentType !== undefined,
    isDefinedInMainPackage: mainType !== undefined,
    // An undefined property has no type to be wrong about: 6.7.9-2 / 6.6.2.3.1-1 report it.
    isValueTypeCorrect: type === undefined || valueHasType(p.value, type, extensions.structs),
  };
}

/** ISO 19005-1 6.7.11: pdfaid:part and pdfaid:conformance (and amd, corr) with the prefixes they were written with. */
function identification(props: readonly XmpProperty[]): Values | undefined {
  const find = (name: string) => props.find((p) => p.namespace === NS.pdfaid && p.name === name);
  const part = find('part');
  const conformance = find('conformance');
  const amd = find('amd');
  const corr = find('corr');
  if (part === undefined && conformance === undefined && amd === undefined && corr === undefined) return undefined;
  const text = (p: XmpProperty | undefined): string | null => (p?.value.kind === 'simple' ? p.value.text.trim() : null);
  const partText = text(part);
  return {
    part: partText !== null && /^[+-]?\d+$/.test(partText) ? Number(partText) : null,
    conformance: text(conformance),
    amd: text(amd),
    corr: text(corr),
    partPrefix: part?.prefix ?? null,
    conformancePrefix: conformance?.prefix ?? null,
    amdPrefix: amd?.prefix ?? null,
    corrPrefix: corr?.prefix ?? null,
  };
}

function streamOf(doc: CosDocument, v: CosValue | undefined): CosStream | undefined {
  const r = doc.resolve(v);
  return r?.kind === 'stream' ? r : undefined;
}

/** The /Metadata streams of every object other than the catalog (pages, images, fonts…), each once. */
function otherMetadataStreams(doc: CosDocument, catalogMetadata: CosStream | undefined, max: number): { stream: CosStream; path: string }[] {
  const seen = new Set<CosStream>();
  if (catalogMetadata !== undefined) seen.add(catalogMetadata);
  const found: { stream: CosStream; path: string }[] = [];
  for (const obj of doc.indirectObjects()) {
    if (found.length >= max) break;
    const v = obj.value;
    const dict = v.kind === 'dict' ? v : v.kind === 'stream' ? v.dict : undefined;
    if (dict === undefined || dict === doc.catalog) continue;
    const m = streamOf(doc, dict.entries.get('Metadata'));
    if (m !== undefined && !seen.has(m)) {
      seen.add(m);
      found.push({ stream: m, path: `${obj.num} ${obj.gen} obj/Metadata` });
    }
  }
  return found;
}
