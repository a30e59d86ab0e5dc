import { QuireError } from '../../core/errors.js';
import { withChromiumPlaceholders } from '../../engines/chromium/header-footer.js';
import { PageSelectionError, parsePageSelection, type PageSelection } from '../../core/page-selection.js';
import { defaultsOf } from '../option-schema.js';
import { ConverterImage, ConverterOffice, ConverterPage, type ConverterOptions } from './options.schema.js';

export type { ConverterOptions };

/** `Operation_ConverterMail.attachmentMode`. */
export type AttachmentMode = NonNullable<ConverterOptions['mail']>['attachmentMode'];
type PageOptions = NonNullable<ConverterOptions['page']>;

/** What absent members stand for: their schemas' defaults. */
const NO_IMAGE = defaultsOf(ConverterImage);
const NO_OFFICE_FORM = defaultsOf(ConverterOffice.properties.word.properties.form);

/** Page geometry in millimetres. */
export interface PageGeometry {
  width: number;
  height: number;
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** What the converter does, after every option was checked. */
export interface ConversionSettings {
  pages: PageSelection;
  embedFonts: boolean;
  compression: boolean;
  /** Down-sample images to this many dpi; undefined = keep. */
  maxDpi: number | undefined;
  jpegQuality: number;
  accessPassword: string;
  /** The `page` member as given; undefined when the client did not send one. */
  page: PageGeometry | undefined;
  /** The page of formats without their own layout: `page`, or A4 with 20 mm margins. */
  layoutPage: PageGeometry;
  headerHtml: string | undefined;
  footerHtml: string | undefined;
  maintainAspectRatio: boolean;
  formFields: boolean;
  options: ConverterOptions;
}

const MM_PER_UNIT = { mm: 1, in: 25.4, pt: 25.4 / 72, pc: (25.4 / 72) * 12, px: 25.4 / 96 } as const;
/** The `page` member's defaults: A4 with 20 mm margins. */
const A4: PageGeometry = pageGeometry(defaultsOf(ConverterPage));

/**
 * Checks the options and turns them into settings. An option that is valid in webPDF but that this
 * server cannot honour is refused with OPTION_UNSUPPORTED naming it, never silently ignored.
 */
export function conversionSettings(options: ConverterOptions): ConversionSettings {
  refuseUnsupported(options);
  let pages: PageSelection;
  try {
    pages = parsePageSelection(options.pages);
  } catch (error) {
    if (error instanceof PageSelectionError) throw new QuireError('PARAMETER', `Invalid parameter converter.pages: ${error.message}`);
    throw error;
  }
  const page = options.page ? pageGeometry(options.page) : undefined;
  const { dpi } = options;
  if (options.reduceResolution && dpi <= 0) {
    throw new QuireError('PARAMETER', 'Invalid parameter converter.dpi: reduceResolution needs a dpi above 0.');
  }
  return {
    pages,
    embedFonts: options.embedFonts,
    compression: options.compression,
    maxDpi: options.reduceResolution ? dpi : undefined,
    jpegQuality: Math.max(1, options.jpegQuality),
    accessPassword: options.accessPassword,
    page,
    layoutPage: page ?? A4,
    headerHtml: decodeHtml(options.page?.header, 'converter.page.header'),
    footerHtml: decodeHtml(options.page?.footer, 'converter.page.footer'),
    maintainAspectRatio: (options.image ?? NO_IMAGE).maintainAspectRatio,
    formFields: (options.office?.word?.form ?? NO_OFFICE_FORM).enabled,
    options,
  };
}

function pageGeometry(page: PageOptions): PageGeometry {
  const unit = MM_PER_UNIT[page.metrics];
  const geometry = {
    width: page.width * unit,
    height: page.height * unit,
    top: page.top * unit,
    right: page.right * unit,
    bottom: page.bottom * unit,
    left: page.left * unit,
  };
  if (geometry.width < 10 || geometry.height < 10 || geometry.width > 5080 || geometry.height > 5080) {
    throw new QuireError('PARAMETER', 'Invalid parameter converter.page: width and height must be between 10 mm and 5080 mm (200 in).');
  }
  if ([geometry.top, geometry.right, geometry.bottom, geometry.left].some((m) => m < 0)) {
    throw new QuireError('PARAMETER', 'Invalid parameter converter.page: margins cannot be negative.');
  }
  if (geometry.left + geometry.right >= geometry.width || geometry.top + geometry.bottom >= geometry.height) {
    throw new QuireError('PARAMETER', 'Invalid parameter converter.page: the margins leave no room on the page.');
  }
  return geometry;
}

function decodeHtml(data: PageOptions['header'], field: string): string | undefined {
  if (!data) return undefined;
  if (data.source === 'uri') {
    throw new QuireError('OPTION_UNSUPPORTED', `${field}.source "uri" is not supported: send the HTML Base64-encoded in ${field}.value.`);
  }
  if (!data.value) return undefined;
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(data.value)) throw new QuireError('PARAMETER', `Invalid parameter ${field}.value: not Base64.`);
  // webPDF's ${html.pageNumber}, ${html.totalPages}, ${html.title} as Chromium's template classes.
  return withChromiumPlaceholders(Buffer.from(data.value, 'base64').toString('utf8'));
}

/** Members and values that name features this server does not have. */
function refuseUnsupported(options: ConverterOptions): void {
  const refuse = (field: string, why: string): never => {
    throw new QuireError('OPTION_UNSUPPORTED', `converter.${field} is not supported by this server: ${why}`);
  };
  if (options.officeBridge) refuse('officeBridge', 'there is no Windows Office bridge; Office documents are converted with LibreOffice.');
  if (options.sharePointBridge) refuse('sharePointBridge', 'there is no SharePoint bridge.');
  if (options.template) refuse('template', 'template-based rendering is not available.');
  if (options.transform) refuse('transform', 'XML transformations (XRechnung, XSL) are not available.');
  if (options.html?.useAsTemplate && options.html.templateData?.source === 'uri' && options.html.templateData.uri.trim() !== '') {
    refuse('html.templateData.source', '"uri" is not available: send the JSON Base64-encoded in html.templateData.value.');
  }
  if (options.html?.adjustFonts) refuse('html.adjustFonts', 'font adjustment is not available; the HTML is rendered with its own CSS.');
  if (options.html?.errorReport?.mode === 'message') refuse('html.errorReport.mode', '"message" is not available; blocked and failed resources are logged.');
  if (options.mail?.adjustFonts) refuse('mail.adjustFonts', 'font adjustment is not available.');
  if (options.mail?.reduceImageSize) refuse('mail.reduceImageSize', 'use reduceResolution with dpi instead.');
  if (options.text?.syntaxHighlight || options.text?.useSyntaxDetection) {
    refuse(options.text.useSyntaxDetection ? 'text.useSyntaxDetection' : 'text.syntaxHighlight', 'syntax highlighting is not available; textHighlight styles plain text.');
  }
  if (options.text?.textHighlight?.fontOrigin === 'folder') refuse('text.textHighlight.fontOrigin', '"folder" is not available; fonts of the fonts folder are system fonts here.');
  if (options.report?.contentProblems) refuse('report.contentProblems', 'content problems are not reported; fontIsMissing and fontAliasUsage are.');
  if (options.pdfa?.analyze) refuse('pdfa.analyze', 'a converter result cannot be analysed in the same call; use the pdfa web service.');
}
