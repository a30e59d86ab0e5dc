import { XMP_NAMESPACES } from '../../../xml/xmp-namespaces.js';

/**
 * The predefined XMP schemas ISO 19005 refers to, as data: each property's value type, from the
 * property tables of the XMP Specification (January 2004, for PDF/A-1; September 2005, for PDF/A-2
 * and -3), plus the PDF/A schemas of ISO 19005 itself (pdfaid, the extension schema container).
 * `since: 2005` marks what the 2004 edition does not have. Value types are the specification's names
 * (`Bag Text`, `Lang Alt`, `Seq ResourceEvent`…); closed and open choices are written as their base type.
 */
export interface PropertyDef {
  readonly type: string;
  readonly since?: 2005;
  /** The type in the 2004 edition where it differs. */
  readonly type2004?: string;
}

type Table = Readonly<Record<string, string | PropertyDef>>;

/** Namespace URIs by their usual prefix. */
export const NS = XMP_NAMESPACES;

const DC: Table = {
  contributor: 'Bag ProperName',
  coverage: 'Text',
  creator: 'Seq ProperName',
  date: 'Seq Date',
  description: 'Lang Alt',
  format: 'MIMEType',
  identifier: 'Text',
  language: 'Bag Locale',
  publisher: 'Bag ProperName',
  relation: 'Bag Text',
  rights: 'Lang Alt',
  source: 'Text',
  subject: 'Bag Text',
  title: 'Lang Alt',
  type: 'Bag Text',
};

const XMP_BASIC: Table = {
  Advisory: 'Bag XPath',
  BaseURL: 'URL',
  CreateDate: 'Date',
  CreatorTool: 'AgentName',
  Identifier: 'Bag Text',
  Label: { type: 'Text', since: 2005 },
  MetadataDate: 'Date',
  ModifyDate: 'Date',
  Nickname: 'Text',
  Rating: { type: 'Real', since: 2005 },
  Thumbnails: 'Alt Thumbnail',
};

const XMP_RIGHTS: Table = {
  Certificate: 'URL',
  Marked: 'Boolean',
  Owner: 'Bag ProperName',
  UsageTerms: 'Lang Alt',
  WebStatement: 'URL',
};

const XMP_MM: Table = {
  DerivedFrom: 'ResourceRef',
  DocumentID: 'URI',
  History: 'Seq ResourceEvent',
  InstanceID: 'URI',
  ManagedFrom: 'ResourceRef',
  Manager: 'AgentName',
  ManageTo: 'URI',
  ManageUI: 'URI',
  ManagerVariant: 'Text',
  RenditionClass: 'RenditionClass',
  RenditionParams: 'Text',
  VersionID: 'Text',
  Versions: 'Seq Version',
  LastURL: 'URL',
  RenditionOf: 'ResourceRef',
  SaveID: 'Integer',
};

const XMP_BJ: Table = { JobRef: 'Bag Job' };

const XMP_TPG: Table = {
  MaxPageSize: 'Dimensions',
  NPages: 'Integer',
  Fonts: { type: 'Bag Font', since: 2005 },
  Colorants: { type: 'Seq Colorant', since: 2005 },
  PlateNames: { type: 'Seq Text', since: 2005 },
};

const DM = (type: string): PropertyDef => ({ type, since: 2005 });
const XMP_DM: Table = {
  absPeakAudioFilePath: DM('URI'),
  album: DM('Text'),
  altTapeName: DM('Text'),
  altTimecode: DM('Timecode'),
  artist: DM('Text'),
  audioModDate: DM('Date'),
  audioSampleRate: DM('Integer'),
  audioSampleType: DM('Text'),
  audioChannelType: DM('Text'),
  audioCompressor: DM('Text'),
  beatSpliceParams: DM('beatSpliceStretch'),
  composer: DM('Text'),
  contributedMedia: DM('Bag Media'),
  copyright: DM('Text'),
  duration: DM('Time'),
  engineer: DM('Text'),
  fileDataRate: DM('Rational'),
  genre: DM('Text'),
  instrument: DM('Text'),
  introTime: DM('Time'),
  key: DM('Text'),
  logComment: DM('Text'),
  loop: DM('Boolean'),
  numberOfBeats: DM('Real'),
  markers: DM('Seq Marker'),
  metadataModDate: DM('Date'),
  outCue: DM('Time'),
  projectRef: DM('ProjectLink'),
  pullDown: DM('Text'),
  relativePeakAudioFilePath: DM('URI'),
  relativeTimestamp: DM('Time'),
  releaseDate: DM('Date'),
  resampleParams: DM('resampleStretch'),
  scaleType: DM('Text'),
  scene: DM('Text'),
  shotDate: DM('Date'),
  shotLocation: DM('Text'),
  shotName: DM('Text'),
  speakerPlacement: DM('Text'),
  startTimecode: DM('Timecode'),
  stretchMode: DM('Text'),
  tapeName: DM('Text'),
  tempo: DM('Real'),
  timeScaleParams: DM('timeScaleStretch'),
  timeSignature: DM('Text'),
  trackNumber: DM('Integer'),
  videoAlphaMode: DM('Text'),
  videoAlphaPremultipleColor: DM('Colorant'),
  videoAlphaUnityIsTransparent: DM('Boolean'),
  videoColorSpace: DM('Text'),
  videoCompressor: DM('Text'),
  videoFieldOrder: DM('Text'),
  videoFrameRate: DM('Text'),
  videoFrameSize: DM('Dimensions'),
  videoModDate: DM('Date'),
  videoPixelDepth: DM('Text'),
  videoPixelAspectRatio: DM('Rational'),
};

const PDF: Table = { Keywords: 'Text', PDFVersion: 'Text', Producer: 'AgentName' };

const PHOTOSHOP: Table = {
  AuthorsPosition: 'Text',
  CaptionWriter: 'ProperName',
  Category: 'Text',
  City: 'Text',
  ColorMode: { type: 'Integer', since: 2005 },
  Country: 'Text',
  Credit: 'Text',
  DateCreated: 'Date',
  Headline: 'Text',
  History: { type: 'Text', since: 2005 },
  ICCProfile: { type: 'Text', since: 2005 },
  Instructions: 'Text',
  Source: 'Text',
  State: 'Text',
  SupplementalCategories: { type: 'Bag Text', type2004: 'Text' },
  TransmissionReference: 'Text',
  Urgency: 'Integer',
};

const CRS: Table = {
  AutoBrightness: { type: 'Boolean', since: 2005 },
  AutoContrast: { type: 'Boolean', since: 2005 },
  AutoExposure: { type: 'Boolean', since: 2005 },
  AutoShadows: { type: 'Boolean', since: 2005 },
  BlueHue: { type: 'Integer', since: 2005 },
  BlueSaturation: { type: 'Integer', since: 2005 },
  Brightness: { type: 'Integer', since: 2005 },
  CameraProfile: { type: 'Text', since: 2005 },
  ChromaticAberrationB: { type: 'Integer', since: 2005 },
  ChromaticAberrationR: { type: 'Integer', since: 2005 },
  ColorNoiseReduction: { type: 'Integer', since: 2005 },
  Contrast: { type: 'Integer', since: 2005 },
  CropTop: { type: 'Real', since: 2005 },
  CropLeft: { type: 'Real', since: 2005 },
  CropBottom: { type: 'Real', since: 2005 },
  CropRight: { type: 'Real', since: 2005 },
  CropAngle: { type: 'Real', since: 2005 },
  CropWidth: { type: 'Real', since: 2005 },
  CropHeight: { type: 'Real', since: 2005 },
  CropUnits: { type: 'Integer', since: 2005 },
  Exposure: { type: 'Real', since: 2005 },
  GreenHue: { type: 'Integer', since: 2005 },
  GreenSaturation: { type: 'Integer', since: 2005 },
  HasCrop: { type: 'Boolean', since: 2005 },
  HasSettings: { type: 'Boolean', since: 2005 },
  LuminanceSmoothing: { type: 'Integer', since: 2005 },
  RawFileName: { type: 'Text', since: 2005 },
  RedHue: { type: 'Integer', since: 2005 },
  RedSaturation: { type: 'Integer', since: 2005 },
  Saturation: { type: 'Integer', since: 2005 },
  Shadows: { type: 'Integer', since: 2005 },
  ShadowTint: { type: 'Integer', since: 2005 },
  Sharpness: { type: 'Integer', since: 2005 },
  Temperature: { type: 'Integer', since: 2005 },
  Tint: { type: 'Integer', since: 2005 },
  ToneCurve: { type: 'Seq Text', since: 2005 },
  ToneCurveName: { type: 'Text', since: 2005 },
  Version: { type: 'Text', since: 2005 },
  VignetteAmount: { type: 'Integer', since: 2005 },
  VignetteMidpoint: { type: 'Integer', since: 2005 },
  WhiteBalance: { type: 'Text', since: 2005 },
};

const TIFF: Table = {
  ImageWidth: 'Integer',
  ImageLength: 'Integer',
  BitsPerSample: 'Seq Integer',
  Compression: 'Integer',
  PhotometricInterpretation: 'Integer',
  Orientation: 'Integer',
  SamplesPerPixel: 'Integer',
  PlanarConfiguration: 'Integer',
  YCbCrSubSampling: 'Seq Integer',
  YCbCrPositioning: 'Integer',
  XResolution: 'Rational',
  YResolution: 'Rational',
  ResolutionUnit: 'Integer',
  TransferFunction: 'Seq Integer',
  WhitePoint: 'Seq Rational',
  PrimaryChromaticities: 'Seq Rational',
  YCbCrCoefficients: 'Seq Rational',
  ReferenceBlackWhite: 'Seq Rational',
  DateTime: 'Date',
  ImageDescription: 'Lang Alt',
  Make: 'ProperName',
  Model: 'ProperName',
  Software: 'AgentName',
  Artist: 'ProperName',
  Copyright: 'Lang Alt',
};

const EXIF: Table = {
  ExifVersion: 'Text',
  FlashpixVersion: 'Text',
  ColorSpace: 'Integer',
  ComponentsConfiguration: 'Seq Integer',
  CompressedBitsPerPixel: 'Rational',
  PixelXDimension: 'Integer',
  PixelYDimension: 'Integer',
  UserComment: 'Lang Alt',
  RelatedSoundFile: 'Text',
  DateTimeOriginal: 'Date',
  DateTimeDigitized: 'Date',
  ExposureTime: 'Rational',
  FNumber: 'Rational',
  ExposureProgram: 'Integer',
  SpectralSensitivity: 'Text',
  ISOSpeedRatings: 'Seq Integer',
  OECF: 'OECF/SFR',
  ShutterSpeedValue: 'Rational',
  ApertureValue: 'Rational',
  BrightnessValue: 'Rational',
  ExposureBiasValue: 'Rational',
  MaxApertureValue: 'Rational',
  SubjectDistance: 'Rational',
  MeteringMode: 'Integer',
  LightSource: 'Integer',
  Flash: 'Flash',
  FocalLength: 'Rational',
  SubjectArea: 'Seq Integer',
  FlashEnergy: 'Rational',
  SpatialFrequencyResponse: 'OECF/SFR',
  FocalPlaneXResolution: 'Rational',
  FocalPlaneYResolution: 'Rational',
  FocalPlaneResolutionUnit: 'Integer',
  SubjectLocation: 'Seq Integer',
  ExposureIndex: 'Rational',
  SensingMethod: 'Integer',
  FileSource: 'Integer',
  SceneType: 'Integer',
  CFAPattern: 'CFAPattern',
  CustomRendered: 'Integer',
  ExposureMode: 'Integer',
  WhiteBalance: 'Integer',
  DigitalZoomRatio: 'Rational',
  FocalLengthIn35mmFilm: 'Integer',
  SceneCaptureType: 'Integer',
  GainControl: 'Integer',
  Contrast: 'Integer',
  Saturation: 'Integer',
  Sharpness: 'Integer',
  DeviceSettingDescription: 'DeviceSettings',
  SubjectDistanceRange: 'Integer',
  ImageUniqueID: 'Text',
  MakerNote: 'Text',
  GPSVersionID: 'Text',
  GPSLatitude: 'GPSCoordinate',
  GPSLongitude: 'GPSCoordinate',
  GPSAltitudeRef: 'Integer',
  GPSAltitude: 'Rational',
  GPSTimeStamp: 'Date',
  GPSSatellites: 'Text',
  GPSStatus: 'Text',
  GPSMeasureMode: 'Integer',
  GPSDOP: 'Rational',
  GPSSpeedRef: 'Text',
  GPSSpeed: 'Rational',
  GPSTrackRef: 'Text',
  GPSTrack: 'Rational',
  GPSImgDirectionRef: 'Text',
  GPSImgDirection: 'Rational',
  GPSMapDatum: 'Text',
  GPSDestLatitude: 'GPSCoordinate',
  GPSDestLongitude: 'GPSCoordinate',
  GPSDestBearingRef: 'Text',
  GPSDestBearing: 'Rational',
  GPSDestDistanceRef: 'Text',
  GPSDestDistance: 'Rational',
  GPSProcessingMethod: 'Text',
  GPSAreaInformation: 'Text',
  GPSDifferential: 'Integer',
};

const AUX: Table = {
  Lens: { type: 'Text', since: 2005 },
  SerialNumber: { type: 'Text', since: 2005 },
};

/** ISO 19005's own schemas: the PDF/A identification (-1 6.7.11, -2 6.6.4) and the extension schema container. */
const PDFAID: Table = { part: 'Integer', conformance: 'Text', amd: 'Text', corr: { type: 'Text', since: 2005 } };
const PDFA_EXTENSION: Table = { schemas: 'Bag Schema' };

/** Namespace URI → its properties. The URI must match exactly (ISO 19005-1 6.7.2: prefixes may differ, URIs not). */
export const PREDEFINED: ReadonlyMap<string, Table> = new Map<string, Table>([
  [NS.dc, DC],
  [NS.xmp, XMP_BASIC],
  [NS.xmpRights, XMP_RIGHTS],
  [NS.xmpMM, XMP_MM],
  [NS.xmpBJ, XMP_BJ],
  [NS.xmpTPg, XMP_TPG],
  [NS.xmpDM, XMP_DM],
  [NS.pdf, PDF],
  [NS.photoshop, PHOTOSHOP],
  [NS.crs, CRS],
  [NS.tiff, TIFF],
  [NS.exif, EXIF],
  [NS.aux, AUX],
  [NS.pdfaid, PDFAID],
  [NS.pdfaExtension, PDFA_EXTENSION],
]);

/** The predefined type of a property in the given edition, or undefined when that edition does not define it. */
export function predefinedType(namespace: string, name: string, edition: 2004 | 2005): string | undefined {
  const table = PREDEFINED.get(namespace);
  if (table === undefined || !Object.hasOwn(table, name)) return undefined;
  const def = table[name] as string | PropertyDef;
  if (typeof def === 'string') return def;
  if (def.since !== undefined && def.since > edition) return undefined;
  return edition === 2004 && def.type2004 !== undefined ? def.type2004 : def.type;
}

/**
 * The structured value types: each field's namespace and type. A field outside the list makes the
 * value's type incorrect (XMP 2004 §4.2: a structure's fields are those its type defines).
 */
export interface StructDef {
  readonly namespace: string;
  readonly fields: Readonly<Record<string, string>>;
}

const dmStruct = (fields: Record<string, string>): StructDef => ({ namespace: NS.xmpDM, fields });

export const STRUCTS: ReadonlyMap<string, StructDef> = new Map<string, StructDef>([
  [
    'ResourceRef',
    {
      namespace: NS.stRef,
      fields: {
        instanceID: 'URI',
        documentID: 'URI',
        versionID: 'Text',
        renditionClass: 'RenditionClass',
        renditionParams: 'Text',
        manager: 'AgentName',
        managerVariant: 'Text',
        manageTo: 'URI',
        manageUI: 'URI',
      },
    },
  ],
  ['ResourceEvent', { namespace: NS.stEvt, fields: { action: 'Text', instanceID: 'URI', parameters: 'Text', softwareAgent: 'AgentName', when: 'Date' } }],
  ['Version', { namespace: NS.stVer, fields: { comments: 'Text', event: 'ResourceEvent', modifyDate: 'Date', modifier: 'ProperName', version: 'Text' } }],
  ['Thumbnail', { namespace: NS.xmpGImg, fields: { height: 'Integer', width: 'Integer', format: 'Text', image: 'Text' } }],
  ['Dimensions', { namespace: NS.stDim, fields: { w: 'Real', h: 'Real', unit: 'Text' } }],
  ['Job', { namespace: NS.stJob, fields: { name: 'Text', id: 'Text', url: 'URL' } }],
  [
    'Font',
    {
      namespace: NS.stFnt,
      fields: { fontName: 'Text', fontFamily: 'Text', fontFace: 'Text', fontType: 'Text', versionString: 'Text', composite: 'Boolean', fontFileName: 'Text', childFontFiles: 'Seq Text' },
    },
  ],
  [
    'Colorant',
    {
      namespace: NS.xmpG,
      fields: {
        swatchName: 'Text',
        mode: 'Text',
        type: 'Text',
        cyan: 'Real',
        magenta: 'Real',
        yellow: 'Real',
        black: 'Real',
        red: 'Integer',
        green: 'Integer',
        blue: 'Integer',
        L: 'Real',
        A: 'Integer',
        B: 'Integer',
      },
    },
  ],
  ['Flash', { namespace: NS.exif, fields: { Fired: 'Boolean', Return: 'Integer', Mode: 'Integer', Function: 'Boolean', RedEyeMode: 'Boolean' } }],
  ['OECF/SFR', { namespace: NS.exif, fields: { Columns: 'Integer', Rows: 'Integer', Names: 'Seq Text', Values: 'Seq Rational' } }],
  ['CFAPattern', { namespace: NS.exif, fields: { Columns: 'Integer', Rows: 'Integer', Values: 'Seq Integer' } }],
  ['DeviceSettings', { namespace: NS.exif, fields: { Columns: 'Integer', Rows: 'Integer', Settings: 'Seq Text' } }],
  ['Marker', dmStruct({ startTime: 'Time', duration: 'Time', comment: 'Text', name: 'Text', location: 'URI', target: 'Text', type: 'Text' })],
  ['Media', dmStruct({ path: 'URI', track: 'Text', startTime: 'Time', duration: 'Time', managed: 'Boolean', webStatement: 'URI' })],
  ['ProjectLink', dmStruct({ type: 'Text', path: 'URI' })],
  ['Time', dmStruct({ value: 'Integer', scale: 'Rational' })],
  ['Timecode', dmStruct({ timeValue: 'Text', timeFormat: 'Text' })],
  ['beatSpliceStretch', dmStruct({ useFileBeatsMarker: 'Boolean', riseInDecibel: 'Real', riseInTimeDuration: 'Time' })],
  ['resampleStretch', dmStruct({ quality: 'Text' })],
  ['timeScaleStretch', dmStruct({ quality: 'Text', frameSize: 'Real', frameOverlappingPercentage: 'Real' })],
  // ISO 19005-1 6.7.8 Table 2-6: the extension schema description's own structures.
  ['Schema', { namespace: NS.pdfaSchema, fields: { schema: 'Text', namespaceURI: 'URI', prefix: 'Text', property: 'Seq Property', valueType: 'Seq ValueType' } }],
  ['Property', { namespace: NS.pdfaProperty, fields: { name: 'Text', valueType: 'Text', category: 'Text', description: 'Text' } }],
  ['ValueType', { namespace: NS.pdfaType, fields: { type: 'Text', namespaceURI: 'URI', prefix: 'Text', description: 'Text', field: 'Seq Field' } }],
  ['Field', { namespace: NS.pdfaField, fields: { name: 'Text', valueType: 'Text', description: 'Text' } }],
]);
