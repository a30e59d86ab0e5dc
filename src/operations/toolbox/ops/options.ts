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
  type BackgroundLayer,
  type ViewerPreferencesSpec,
} from '../../../engines/pdf-edit/content/index.js';
import { defaultsOf, type Options } from '../../option-schema.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxContext, ToolboxOperation, WorkFile } from '../operation.js';
import { requirePage, selectPages } from '../pages.js';
import { BackgroundSettings, Boxes, HeaderFooter, PageInterval, PageTransitions, Slots, Transition, type OptionsOptions } from './options.schema.js';

type PageIntervalOptions = Options<typeof PageInterval>;
type BackgroundSettingsOptions = Options<typeof BackgroundSettings>;
type HeaderFooterSlots = Options<typeof Slots>;
type HeaderFooterContent = NonNullable<NonNullable<NonNullable<OptionsOptions['headerFooter']>['add']>['headerFooterContent']>;

/** What absent members stand for: their schemas' defaults. */
const DEFAULTS = {
  boxesRemove: defaultsOf(Boxes.properties.remove.items.properties.boxesRemove),
  transition: defaultsOf(Transition),
  transitionSelection: defaultsOf(PageTransitions.properties.remove.items.properties.transitionSelection),
  pageInterval: defaultsOf(PageInterval),
  settings: defaultsOf(BackgroundSettings),
  position: defaultsOf(BackgroundSettings.properties.position),
  visibility: defaultsOf(BackgroundSettings.properties.visibility),
  content: defaultsOf(HeaderFooter.properties.add.properties.headerFooterContent),
  slots: defaultsOf(Slots),
  font: defaultsOf(HeaderFooter.properties.add.properties.headerFooterContent.properties.font),
  margin: defaultsOf(HeaderFooter.properties.add.properties.headerFooterContent.properties.margin),
};

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
          const spec = entry.boxesRemove ?? DEFAULTS.boxesRemove;
          removeBox(document, selectPages(spec.pages, count, `${field}.${member}.pages`), spec.box, `${member}.box`);
        }
        for (const [i, entry] of (options.boxes?.resize ?? []).entries()) {
          const member = `boxes.resize[${i}].boxesResize`;
          const spec = entry.boxesResize;
          if (!spec?.dimensions) throw new QuireError('PARAMETER', `Invalid parameter ${field}.${member}.dimensions: required.`);
          const { metrics } = spec.dimensions;
          const rect = {
            x: toPoints(spec.dimensions.x, metrics),
            y: toPoints(spec.dimensions.y, metrics),
            width: toPoints(spec.dimensions.width, metrics),
            height: toPoints(spec.dimensions.height, metrics),
          };
          resizeBox(document, selectPages(spec.pages, count, `${field}.${member}.pages`), spec.box, rect, `${member}.dimensions`);
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
        if (headerFooter?.add)
          removedAny =
            (await addHeaderFooter(document, {
              ...headerFooterSpec(headerFooter.add.headerFooterContent ?? DEFAULTS.content, count, field),
              fonts: { timeoutMs: context.engines.toolTimeoutMs, env: { ...process.env, ...context.engines.fontEnv } },
            })) || removedAny;

        for (const [i, entry] of (options.pageTransitions?.remove ?? []).entries()) {
          removeTransitions(document, selectPages((entry.transitionSelection ?? DEFAULTS.transitionSelection).pages, count, `${field}.pageTransitions.remove[${i}].transitionSelection.pages`));
        }
        for (const [i, entry] of (options.pageTransitions?.add ?? []).entries()) {
          const spec = entry.pageTransition ?? DEFAULTS.transition;
          setTransitions(document, {
            pages: selectPages(spec.pages, count, `${field}.pageTransitions.add[${i}].pageTransition.pages`),
            style: spec.style,
            direction: spec.direction,
            duration: spec.duration,
            flyScale: spec.flyScale,
            flyAreaOpaque: spec.flyAreaOpaque,
            autoScroll: spec.autoScroll,
            autoScrollTime: spec.autoScrollTime,
          });
        }

        const { language } = options;
        if (language && !LANGUAGE_TAG.test(language)) {
          throw new QuireError('PARAMETER', `Invalid parameter ${field}.language: "${language}" is not a language tag such as "de" or "de-DE".`);
        }
        applyDisplaySettings(document, {
          initialPage: requirePage(options.initialPage, count, `${field}.initialPage`),
          initialView: options.initialView,
          language,
          magnification: options.magnification,
          magnificationZoom: options.magnificationZoom,
          pageLayout: options.pageLayout,
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
  await context.engines.rewriter.rewrite(path, compact, context.call);
  return { path: compact, type };
}

/** Pages of a `pageInterval`: the selection, then only even and/or odd page numbers. */
function intervalPages(interval: PageIntervalOptions = DEFAULTS.pageInterval, count: number, field: string): number[] {
  const { even, odd } = interval;
  const pages = selectPages(interval.pages, count, `${field}.pages`).filter((page) => (page % 2 === 0 ? even : odd));
  if (pages.length === 0) throw new QuireError('PARAMETER', `Invalid parameter ${field}: selects no page (pages "${interval.pages}", even ${even}, odd ${odd}).`);
  return pages;
}

function backgroundLayers(add: NonNullable<NonNullable<OptionsOptions['background']>['add']>, count: number, field: string): (BackgroundLayer & { replaceExisting: boolean })[] {
  const layers: (BackgroundLayer & { replaceExisting: boolean })[] = [];
  const settings = (raw: BackgroundSettingsOptions = DEFAULTS.settings, member: string) => {
    const position = raw.position ?? DEFAULTS.position;
    const visibility = raw.visibility ?? DEFAULTS.visibility;
    return {
      pages: intervalPages(raw.pages?.pageInterval, count, `${field}.${member}.settings.pages.pageInterval`),
      opacity: raw.opacity / 100,
      anchor: position.position,
      x: toPoints(position.x, position.metrics),
      y: toPoints(position.y, position.metrics),
      relativeToPage: raw.relativeToPage,
      rotation: raw.rotation,
      scale: raw.scale,
      onScreen: visibility.onScreen,
      onPrint: visibility.onPrint,
    };
  };
  if (add.colorBackground) {
    const member = 'colorBackground';
    layers.push({
      color: parseColor(add.colorBackground.color, `background.add.${member}.color`),
      settings: settings(add.colorBackground.settings, member),
      member: `background.add.${member}`,
      replaceExisting: (add.colorBackground.settings ?? DEFAULTS.settings).replaceExisting,
    });
  }
  if (add.imageBackground) {
    const member = 'imageBackground';
    layers.push({
      image: decodeFileData(add.imageBackground.image, `${field}.${member}.image`),
      settings: settings(add.imageBackground.settings, member),
      member: `background.add.${member}`,
      replaceExisting: (add.imageBackground.settings ?? DEFAULTS.settings).replaceExisting,
    });
  }
  return layers;
}

function headerFooterSpec(content: HeaderFooterContent, count: number, field: string) {
  const base = `${field}.headerFooter.add.headerFooterContent`;
  const slots = ({ left, center, right }: HeaderFooterSlots = DEFAULTS.slots) => ({ left, center, right });
  const header = slots(content.header);
  const footer = slots(content.footer);
  if (![...Object.values(header), ...Object.values(footer)].some((text) => text.trim() !== '')) {
    throw new QuireError('PARAMETER', `Invalid parameter ${base}: give a header or footer text (header/footer left, center or right).`);
  }
  const font = content.font ?? DEFAULTS.font;
  const { metrics, top, bottom, left, right } = content.margin ?? DEFAULTS.margin;
  const margin = (value: number) => toPoints(value, metrics);
  return {
    header,
    footer,
    fontName: font.name,
    size: font.size,
    color: parseColor(font.color, 'headerFooter.add.headerFooterContent.font.color'),
    underline: font.underline,
    margin: { top: margin(top), bottom: margin(bottom), left: margin(left), right: margin(right) },
    pages: intervalPages(content.pages?.pageInterval, count, `${base}.pages.pageInterval`),
    firstPageNumber: content.firstPageNumber,
    date: headerFooterDate(content.date, `${base}.date`),
    replaceExisting: content.replaceExisting,
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
  const range = raw.printPageRange;
  const printPages = range.trim() === '' || range.trim() === '*' ? [] : selectPages(range, count, `${field}.viewerPreferences.printPageRange`);
  return {
    centerWindow: raw.centerWindow,
    displayDocTitle: raw.displayDocTitle,
    fitWindow: raw.fitWindow,
    hideMenuBar: raw.hideMenuBar,
    hideToolbar: raw.hideToolbar,
    hideWindowUI: raw.hideWindowUI,
    duplex: raw.duplex,
    nonFullScreenPageMode: raw.nonFullScreenPageMode,
    numCopies: raw.numCopies,
    printArea: raw.printArea,
    printClip: raw.printClip,
    viewArea: raw.viewArea,
    viewClip: raw.viewClip,
    printPages: [...new Set(printPages)].sort((a, b) => a - b),
    printScaling: raw.printScaling,
    printTraySelection: raw.printTraySelection,
    textDirection: raw.textDirection,
  };
}
