import Type from 'typebox';

/**
 * `portal`: webPDF's portal settings (`ApplicationConfig_Portal`, reference Appendix B), kept as the
 * administration writes them and shown back; Quire has no portal of its own, so nothing else reads
 * them. The members, types and defaults are the reference's, so a client that reads the application
 * configuration finds every member it knows (`portal.userInterface.limits`, ...).
 */

const object = <T extends Parameters<typeof Type.Object>[0]>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, default: {}, ...(description ? { description } : {}) });

/** `ApplicationConfig_PortalFunctions`: one switch per portal function, all on by default. */
export const PORTAL_FUNCTIONS = [
  'addWatermark',
  'changeDocumentSettings',
  'changeDocumentView',
  'compress',
  'convertDocument',
  'createBarcode',
  'deletePages',
  'detectBarcode',
  'editAnnotation',
  'editAttachment',
  'editBackground',
  'editBoxes',
  'editForms',
  'editHeaderFooter',
  'editTransitions',
  'encryptDocument',
  'exportAsImage',
  'extractContent',
  'extractPages',
  'mergeDocument',
  'movePages',
  'ocrConversion',
  'outline',
  'pdfaConversion',
  'portfolio',
  'printDocument',
  'redact',
  'renameDocument',
  'rotatePages',
  'sanitize',
  'scalePages',
  'showHelp',
  'signDocument',
  'splitDocument',
  'transcribeDocument',
  'uploadFile',
  'uploadUrl',
] as const;

export const PortalSchema = object(
  {
    auth: object({
      allowAnonymous: Type.Boolean({ default: true }),
      enabled: Type.Boolean({ default: true }),
      timeout: object({
        autoRefresh: Type.Integer({ minimum: 0, default: 300, description: 'seconds' }),
        inactivity: Type.Integer({ minimum: 0, default: 60, description: 'minutes' }),
      }),
    }),
    functions: object(Object.fromEntries(PORTAL_FUNCTIONS.map((name) => [name, Type.Boolean({ default: true })]))),
    newsPanel: object({
      contentRefreshInterval: Type.Integer({ minimum: 0, default: 3600, description: 'seconds' }),
      entry: Type.Array(Type.Object({ url: Type.String({ default: '' }) }, { additionalProperties: false }), { default: [] }),
    }),
    settings: object({
      compress: object({ compressProfile: Type.Enum(['always', 'never', 'recompress'], { default: 'never' }) }),
      signature: object({ signatureEditProfile: Type.Enum(['adobeRestrictions', 'generalEditRestrictions', 'noEditRestrictions'], { default: 'adobeRestrictions' }) }),
    }),
    userInterface: object({
      limits: object({ displayDiskSpace: Type.Boolean({ default: false }), displayMaxFiles: Type.Boolean({ default: false }) }),
      tooltips: object({ showDelay: Type.Integer({ default: 5, description: 'seconds' }) }),
    }),
  },
  "webPDF's portal settings (ApplicationConfig_Portal): stored and shown by the configuration administration; Quire has no portal",
);
