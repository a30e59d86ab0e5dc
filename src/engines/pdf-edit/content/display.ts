import { PDFDict, PDFName, PDFString, type PDFDocument } from '@cantoo/pdf-lib';
import type { PageBox } from './boxes.js';
import { num } from './units.js';

export type InitialView = 'none' | 'outlines' | 'thumbnails' | 'fullscreen' | 'layers' | 'attachments';
export type Magnification = 'none' | 'fitWidth' | 'fitVisible' | 'fitHeight' | 'fitPage' | 'fitActual' | 'zoom';
export type PageLayout = 'singlePage' | 'singlePageContinous' | 'twoPages' | 'twoPagesRight' | 'twoPagesContinous' | 'twoPagesContinousRight';

export interface ViewerPreferencesSpec {
  centerWindow: boolean;
  displayDocTitle: boolean;
  fitWindow: boolean;
  hideMenuBar: boolean;
  hideToolbar: boolean;
  hideWindowUI: boolean;
  duplex: 'none' | 'simplex' | 'duplexFlipShortEdge' | 'duplexFlipLongEdge';
  nonFullScreenPageMode: 'none' | 'outlines' | 'thumbnails' | 'optionalContents';
  numCopies: number;
  printArea: PageBox;
  printClip: PageBox;
  viewArea: PageBox;
  viewClip: PageBox;
  /** Pages preselected in the print dialog, 1-based, ascending; empty = all. */
  printPages: readonly number[];
  printScaling: 'readerDefault' | 'noPrintScaling';
  printTraySelection: 'readerDefault' | 'byPDFSize';
  textDirection: 'leftToRight' | 'rightToLeft';
}

export interface DisplaySpec {
  /** 1-based. */
  initialPage: number;
  initialView: InitialView;
  /** RFC 3066 tag; "" = leave as it is. */
  language: string;
  magnification: Magnification;
  /** Percent, for `zoom`. */
  magnificationZoom: number;
  pageLayout: PageLayout;
  viewerPreferences?: ViewerPreferencesSpec;
}

const PAGE_MODES: Record<InitialView, string> = {
  none: 'UseNone',
  outlines: 'UseOutlines',
  thumbnails: 'UseThumbs',
  fullscreen: 'FullScreen',
  layers: 'UseOC',
  attachments: 'UseAttachments',
};

const PAGE_LAYOUTS: Record<PageLayout, string> = {
  singlePage: 'SinglePage',
  singlePageContinous: 'OneColumn',
  twoPages: 'TwoPageLeft',
  twoPagesRight: 'TwoPageRight',
  twoPagesContinous: 'TwoColumnLeft',
  twoPagesContinousRight: 'TwoColumnRight',
};

const BOXES: Record<PageBox, string> = { media_box: 'MediaBox', crop_box: 'CropBox', bleed_box: 'BleedBox', trim_box: 'TrimBox', art_box: 'ArtBox' };

const NON_FULL_SCREEN: Record<ViewerPreferencesSpec['nonFullScreenPageMode'], string> = {
  none: 'UseNone',
  outlines: 'UseOutlines',
  thumbnails: 'UseThumbs',
  optionalContents: 'UseOC',
};

/**
 * How a reader opens the document (PDF 32000-1, 7.7.2 and 12.2): /PageMode, /PageLayout, /Lang,
 * an /OpenAction destination for the initial page and zoom, and /ViewerPreferences (keys the
 * reference has no member for, such as /Enforce, are kept).
 */
export function applyDisplaySettings(document: PDFDocument, spec: DisplaySpec): void {
  const { catalog, context } = document;
  catalog.set(PDFName.of('PageMode'), PDFName.of(PAGE_MODES[spec.initialView]));
  catalog.set(PDFName.of('PageLayout'), PDFName.of(PAGE_LAYOUTS[spec.pageLayout]));
  if (spec.language) catalog.set(PDFName.of('Lang'), PDFString.of(spec.language));

  const page = document.getPage(spec.initialPage - 1).ref;
  const zoom = Number(num(spec.magnificationZoom / 100));
  const destination: Record<Magnification, unknown[]> = {
    none: [page, 'XYZ', null, null, null],
    fitWidth: [page, 'FitH', null],
    fitVisible: [page, 'FitBH', null],
    fitHeight: [page, 'FitV', null],
    fitPage: [page, 'Fit'],
    fitActual: [page, 'XYZ', null, null, 1],
    zoom: [page, 'XYZ', null, null, zoom],
  };
  catalog.set(PDFName.of('OpenAction'), context.obj(destination[spec.magnification] as Parameters<typeof context.obj>[0]));

  const prefs = spec.viewerPreferences;
  if (!prefs) return;
  const existing = context.lookupMaybe(catalog.get(PDFName.of('ViewerPreferences')), PDFDict);
  const dict = existing ? existing.clone(context) : context.obj({});
  const set = (key: string, value: unknown) => dict.set(PDFName.of(key), context.obj(value as Parameters<typeof context.obj>[0]));
  const name = (value: string) => PDFName.of(value);
  set('HideToolbar', prefs.hideToolbar);
  set('HideMenubar', prefs.hideMenuBar);
  set('HideWindowUI', prefs.hideWindowUI);
  set('FitWindow', prefs.fitWindow);
  set('CenterWindow', prefs.centerWindow);
  set('DisplayDocTitle', prefs.displayDocTitle);
  dict.set(PDFName.of('NonFullScreenPageMode'), name(NON_FULL_SCREEN[prefs.nonFullScreenPageMode]));
  dict.set(PDFName.of('Direction'), name(prefs.textDirection === 'rightToLeft' ? 'R2L' : 'L2R'));
  dict.set(PDFName.of('ViewArea'), name(BOXES[prefs.viewArea]));
  dict.set(PDFName.of('ViewClip'), name(BOXES[prefs.viewClip]));
  dict.set(PDFName.of('PrintArea'), name(BOXES[prefs.printArea]));
  dict.set(PDFName.of('PrintClip'), name(BOXES[prefs.printClip]));
  dict.set(PDFName.of('PrintScaling'), name(prefs.printScaling === 'noPrintScaling' ? 'None' : 'AppDefault'));
  if (prefs.duplex === 'none') dict.delete(PDFName.of('Duplex'));
  else dict.set(PDFName.of('Duplex'), name(prefs.duplex === 'simplex' ? 'Simplex' : prefs.duplex === 'duplexFlipShortEdge' ? 'DuplexFlipShortEdge' : 'DuplexFlipLongEdge'));
  if (prefs.printTraySelection === 'byPDFSize') set('PickTrayByPDFSize', true);
  else dict.delete(PDFName.of('PickTrayByPDFSize'));
  if (prefs.printPages.length > 0) set('PrintPageRange', ranges(prefs.printPages));
  else dict.delete(PDFName.of('PrintPageRange'));
  set('NumCopies', prefs.numCopies);
  catalog.set(PDFName.of('ViewerPreferences'), dict);
}

/** Ascending page numbers as first/last pairs: [1,2,3,5] → [1,3,5,5]. */
function ranges(pages: readonly number[]): number[] {
  const pairs: number[] = [];
  for (const page of pages) {
    if (pairs.length > 0 && pairs[pairs.length - 1] === page - 1) pairs[pairs.length - 1] = page;
    else pairs.push(page, page);
  }
  return pairs;
}
