import { QuireError } from '../../../core/errors.js';
import type { FileType } from '../../../core/file-types.js';
import {
  addBackgrounds,
  addHeaderFooter,
  applyDisplaySettings,
  editDocument,
  inField,
  parseColor,
  removeBackgrounds,
  removeBox,
  removeHeaderFooter,
  removeTransitions,
  resizeBox,
  setTransitions,
  toPoints,
  type Anchor,
  type BackgroundLayer,
  type InitialView,
  type Magnification,
  type Metrics,
  type PageBox,
  type PageLayout,
  type TransitionDirection,
  type TransitionStyle,
  type ViewerPreferencesSpec,
} from '../../../engines/pdf-edit/content/index.js';
import { decodeFileData, type FileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { requirePage, selectPages } from '../pages.js';

interface PageInterval {
  even?: boolean;
  odd?: boolean;
  pages?: string;
}

interface BackgroundSettingsOptions {
  opacity?: number;
  pages?: { pageInterval?: PageInterval };
  position?: { metrics?: Metrics; position?: Anchor; x?: number; y?: number };
  relativeToPage?: boolean;
  replaceExisting?: boolean;
  rotation?: number;
  scale?: number;
  visibility?: { onPrint?: boolean; onScreen?: boolean };
}

interface HeaderFooterSlots {
  left?: string;
  center?: string;
  right?: string;
}

interface TransitionOptions {
  autoScroll?: boolean;
  autoScrollTime?: number;
  direction?: TransitionDirection;
  duration?: number;
  flyAreaOpaque?: boolean;
  flyScale?: number;
  pages?: string;
  style?: TransitionStyle;
}

export interface OptionsOptions {
  background?: {
    add?: {
      colorBackground?: { color?: string; settings?: BackgroundSettingsOptions };
      imageBackground?: { image?: FileData; settings?: BackgroundSettingsOptions };
    };
    remove?: { backgroundSelection?: object };
  };
  boxes?: {
    remove?: { boxesRemove?: { box?: PageBox; pages?: string } }[];
    resize?: { boxesResize?: { box?: PageBox; pages?: string; dimensions?: { x?: number; y?: number; width?: number; height?: number; metrics?: Metrics } } }[];
  };
  headerFooter?: {
    add?: {
      headerFooterContent?: {
        date?: { day?: number; month?: number; year?: number };
        firstPageNumber?: number;
        font?: { color?: string; name?: string; size?: number; underline?: boolean };
        footer?: HeaderFooterSlots;
        header?: HeaderFooterSlots;
        margin?: { top?: number; bottom?: number; left?: number; right?: number; metrics?: Metrics };
        pages?: { pageInterval?: PageInterval };
        replaceExisting?: boolean;
      };
    };
    remove?: { headerFooterSelection?: object };
  };
  initialPage?: number;
  initialView?: InitialView;
  language?: string;
  magnification?: Magnification;
  magnificationZoom?: number;
  pageLayout?: PageLayout;
  pageTransitions?: {
    add?: { pageTransition?: TransitionOptions }[];
    remove?: { transitionSelection?: { pages?: string } }[];
  };
  viewerPreferences?: {
    centerWindow?: boolean;
    displayDocTitle?: boolean;
    duplex?: ViewerPreferencesSpec['duplex'];
    fitWindow?: boolean;
    hideMenuBar?: boolean;
    hideToolbar?: boolean;
    hideWindowUI?: boolean;
    nonFullScreenPageMode?: ViewerPreferencesSpec['nonFullScreenPageMode'];
    numCopies?: number;
    printArea?: PageBox;
    printClip?: PageBox;
    printPageRange?: string;
    printScaling?: ViewerPreferencesSpec['printScaling'];
    printTraySelection?: ViewerPreferencesSpec['printTraySelection'];
    textDirection?: ViewerPreferencesSpec['textDirection'];
    viewArea?: PageBox;
    viewClip?: PageBox;
  };
}

/** RFC 3066 / BCP 47 tags: "de", "de-DE", "zh-Hant-TW". */
const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;

/**
 * `options` (reference §10.9.10), applied in this order on one in-memory copy: page boxes (removals,
 * then resizes), backgrounds, headers/footers, page transitions (removals, then additions), then how
 * the document opens (/PageMode, /PageLayout, /OpenAction with initial page and zoom, /Lang,
 * /ViewerPreferences). Backgrounds and headers/footers are Acrobat-style artifacts, so that both this
 * server and Acrobat can find and remove them again.
 */
export const optionsOperation: ToolboxOperation<OptionsOptions> = {
  name: 'options',
  needsPdf: true,
  async run(input, options, context, field) {
    const output = context.scratch('pdf');
    let removed: boolean;
    try {
      ({ removed } = await editDocument(input.path, output, async (document) => {
        const count = document.getPageCount();
        let removedAny = false;

        for (const [i, entry] of (options.boxes?.remove ?? []).entries()) {
          const member = `boxes.remove[${i}].boxesRemove`;
          const spec = entry.boxesRemove ?? {};
          removeBox(document, selectPages(spec.pages ?? '*', count, `${field}.${member}.pages`), spec.box ?? 'crop_box', `${member}.box`);
        }
        for (const [i, entry] of (options.boxes?.resize ?? []).entries()) {
          const member = `boxes.resize[${i}].boxesResize`;
          const spec = entry.boxesResize;
          if (!spec?.dimensions) throw new QuireError('PARAMETER', `Invalid parameter ${field}.${member}.dimensions: required.`);
          const metrics = spec.dimensions.metrics ?? 'mm';
          const rect = {
            x: toPoints(spec.dimensions.x ?? 0, metrics),
            y: toPoints(spec.dimensions.y ?? 0, metrics),
            width: toPoints(spec.dimensions.width ?? 0, metrics),
            height: toPoints(spec.dimensions.height ?? 0, metrics),
          };
          resizeBox(document, selectPages(spec.pages ?? '', count, `${field}.${member}.pages`), spec.box ?? 'media_box', rect, `${member}.dimensions`);
        }

        const background = options.background;
        if (background?.add && background.remove) throw new QuireError('PARAMETER', `Invalid parameter ${field}.background: add and remove exclude each other.`);
        if (background?.remove) removedAny = removeBackgrounds(document) || removedAny;
        if (background?.add) {
          const layers = backgroundLayers(background.add, count, `${field}.background.add`);
          if (layers.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}.background.add: give colorBackground or imageBackground.`);
          const replace = layers.some((layer) => layer.replaceExisting);
          removedAny = (await addBackgrounds(document, layers, replace, context.scratch('img'))) || removedAny;
        }

        const headerFooter = options.headerFooter;
        if (headerFooter?.add && headerFooter.remove) throw new QuireError('PARAMETER', `Invalid parameter ${field}.headerFooter: add and remove exclude each other.`);
        if (headerFooter?.remove) removedAny = removeHeaderFooter(document) || removedAny;
        if (headerFooter?.add) removedAny = (await addHeaderFooter(document, { ...headerFooterSpec(headerFooter.add.headerFooterContent ?? {}, count, field), fonts: { timeoutMs: context.engines.toolTimeoutMs, env: { ...process.env, ...context.engines.fontEnv } } })) || removedAny;

        for (const [i, entry] of (options.pageTransitions?.remove ?? []).entries()) {
          removeTransitions(document, selectPages(entry.transitionSelection?.pages ?? '', count, `${field}.pageTransitions.remove[${i}].transitionSelection.pages`));
        }
        for (const [i, entry] of (options.pageTransitions?.add ?? []).entries()) {
          const spec = entry.pageTransition ?? {};
          setTransitions(document, {
            pages: selectPages(spec.pages ?? '', count, `${field}.pageTransitions.add[${i}].pageTransition.pages`),
            style: spec.style ?? 'none',
            direction: spec.direction ?? 'none',
            duration: spec.duration ?? 1,
            flyScale: spec.flyScale ?? 1,
            flyAreaOpaque: spec.flyAreaOpaque ?? false,
            autoScroll: spec.autoScroll ?? false,
            autoScrollTime: spec.autoScrollTime ?? 0,
          });
        }

        const language = options.language ?? '';
        if (language && !LANGUAGE_TAG.test(language)) {
          throw new QuireError('PARAMETER', `Invalid parameter ${field}.language: "${language}" is not a language tag such as "de" or "de-DE".`);
        }
        applyDisplaySettings(document, {
          initialPage: requirePage(options.initialPage ?? 1, count, `${field}.initialPage`),
          initialView: options.initialView ?? 'none',
          language,
          magnification: options.magnification ?? 'fitWidth',
          magnificationZoom: options.magnificationZoom ?? 100,
          pageLayout: options.pageLayout ?? 'singlePage',
          ...(options.viewerPreferences ? { viewerPreferences: viewerPreferences(options.viewerPreferences, count, field) } : {}),
        });
        return { removed: removedAny };
      }));
    } catch (error) {
      throw inField(error, field);
    }
    if (!removed) return { path: output, type: input.type };
    return dropOrphans(output, input.type, context);
  },
};

/** pdf-lib keeps the objects of removed backgrounds/headers: a qpdf rewrite writes only what is reachable. */
async function dropOrphans(path: string, type: FileType, context: ToolboxContext): Promise<WorkFile> {
  const compact = context.scratch('pdf');
  await context.engines.rewriter.rewrite(path, compact, { deadline: context.deadline });
  return { path: compact, type };
}

/** Pages of a `pageInterval`: the selection, then only even and/or odd page numbers. */
function intervalPages(interval: PageInterval | undefined, count: number, field: string): number[] {
  const even = interval?.even ?? true;
  const odd = interval?.odd ?? true;
  const pages = selectPages(interval?.pages ?? '*', count, `${field}.pages`).filter((page) => (page % 2 === 0 ? even : odd));
  if (pages.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: selects no page (pages "${interval?.pages ?? '*'}", even ${even}, odd ${odd}).`);
  return pages;
}

function backgroundLayers(add: NonNullable<NonNullable<OptionsOptions['background']>['add']>, count: number, field: string): (BackgroundLayer & { replaceExisting: boolean })[] {
  const layers: (BackgroundLayer & { replaceExisting: boolean })[] = [];
  const settings = (raw: BackgroundSettingsOptions | undefined, member: string) => {
    const metrics = raw?.position?.metrics ?? 'mm';
    return {
      pages: intervalPages(raw?.pages?.pageInterval, count, `${field}.${member}.settings.pages.pageInterval`),
      opacity: (raw?.opacity ?? 100) / 100,
      anchor: raw?.position?.position ?? 'center_center',
      x: toPoints(raw?.position?.x ?? 0, metrics),
      y: toPoints(raw?.position?.y ?? 0, metrics),
      relativeToPage: raw?.relativeToPage ?? true,
      rotation: raw?.rotation ?? 0,
      scale: raw?.scale ?? 100,
      onScreen: raw?.visibility?.onScreen ?? true,
      onPrint: raw?.visibility?.onPrint ?? true,
    };
  };
  if (add.colorBackground) {
    const member = 'colorBackground';
    layers.push({
      color: parseColor(add.colorBackground.color ?? '#FFFFFF', `background.add.${member}.color`),
      settings: settings(add.colorBackground.settings, member),
      member: `background.add.${member}`,
      replaceExisting: add.colorBackground.settings?.replaceExisting ?? false,
    });
  }
  if (add.imageBackground) {
    const member = 'imageBackground';
    layers.push({
      image: decodeFileData(add.imageBackground.image, `${field}.${member}.image`),
      settings: settings(add.imageBackground.settings, member),
      member: `background.add.${member}`,
      replaceExisting: add.imageBackground.settings?.replaceExisting ?? false,
    });
  }
  return layers;
}

function headerFooterSpec(content: NonNullable<NonNullable<NonNullable<OptionsOptions['headerFooter']>['add']>['headerFooterContent']>, count: number, field: string) {
  const base = `${field}.headerFooter.add.headerFooterContent`;
  const slots = (raw: HeaderFooterSlots | undefined) => ({ left: raw?.left ?? '', center: raw?.center ?? '', right: raw?.right ?? '' });
  const header = slots(content.header);
  const footer = slots(content.footer);
  if (![...Object.values(header), ...Object.values(footer)].some((text) => text.trim() !== '')) {
    throw new QuireError('PARAMETER', `Invalid parameter ${base}: give a header or footer text (header/footer left, center or right).`);
  }
  const metrics = content.margin?.metrics ?? 'mm';
  const margin = (value: number | undefined) => toPoints(value ?? 0, metrics);
  return {
    header,
    footer,
    fontName: content.font?.name ?? '',
    size: content.font?.size ?? 10,
    color: parseColor(content.font?.color ?? '#000000', 'headerFooter.add.headerFooterContent.font.color'),
    underline: content.font?.underline ?? false,
    margin: { top: margin(content.margin?.top), bottom: margin(content.margin?.bottom), left: margin(content.margin?.left), right: margin(content.margin?.right) },
    pages: intervalPages(content.pages?.pageInterval, count, `${base}.pages.pageInterval`),
    firstPageNumber: content.firstPageNumber ?? 1,
    date: headerFooterDate(content.date, `${base}.date`),
    replaceExisting: content.replaceExisting ?? false,
  };
}

/** The date for date placeholders: given parts, today's for parts left at 0; it must exist. */
function headerFooterDate(date: { day?: number; month?: number; year?: number } | undefined, field: string) {
  const today = new Date();
  const year = date?.year || today.getFullYear();
  const month = date?.month || today.getMonth() + 1;
  const day = date?.day || today.getDate();
  const check = new Date(Date.UTC(year, month - 1, day));
  if (month < 1 || month > 12 || day < 1 || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new QuireError('PARAMETER', `Invalid parameter ${field}: ${year}-${month}-${day} is not a date.`);
  }
  return { year, month, day };
}

function viewerPreferences(raw: NonNullable<OptionsOptions['viewerPreferences']>, count: number, field: string): ViewerPreferencesSpec {
  const range = raw.printPageRange ?? '';
  const printPages = range.trim() === '' || range.trim() === '*' ? [] : selectPages(range, count, `${field}.viewerPreferences.printPageRange`);
  return {
    centerWindow: raw.centerWindow ?? false,
    displayDocTitle: raw.displayDocTitle ?? false,
    fitWindow: raw.fitWindow ?? false,
    hideMenuBar: raw.hideMenuBar ?? false,
    hideToolbar: raw.hideToolbar ?? false,
    hideWindowUI: raw.hideWindowUI ?? false,
    duplex: raw.duplex ?? 'none',
    nonFullScreenPageMode: raw.nonFullScreenPageMode ?? 'none',
    numCopies: raw.numCopies ?? 1,
    printArea: raw.printArea ?? 'crop_box',
    printClip: raw.printClip ?? 'crop_box',
    viewArea: raw.viewArea ?? 'crop_box',
    viewClip: raw.viewClip ?? 'crop_box',
    printPages: [...new Set(printPages)].sort((a, b) => a - b),
    printScaling: raw.printScaling ?? 'readerDefault',
    printTraySelection: raw.printTraySelection ?? 'readerDefault',
    textDirection: raw.textDirection ?? 'leftToRight',
  };
}
