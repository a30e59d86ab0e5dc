import Type, { type TSchema } from 'typebox';
import { base64FileData } from './file-data.schema.js';
import { defaulted, withDefault, type Options } from '../../option-schema.js';

/**
 * `Operation_ToolboxOptions.options` (reference §10.9.10): how the document opens (initial page,
 * view, layout, zoom, language, viewer preferences), backgrounds, page boxes, headers/footers and
 * page transitions. Every member is optional with the reference's default; unknown members are
 * ignored (§5.3).
 */

const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const int = (options: Record<string, unknown>) => Type.Integer({ format: 'int32', ...options });
const bool = (value: boolean, description?: string) => withDefault(Type.Boolean({ default: value, ...(description ? { description } : {}) }));
const color = (value: string) => withDefault(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', default: value, description: '#RRGGBB' }));
const Metrics = withDefault(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: 'mm', description: 'Operation_Metrics (px = 1/96 in)' }));
const PageBox = (value: string, description: string) =>
  withDefault(Type.Enum(['media_box', 'crop_box', 'bleed_box', 'trim_box', 'art_box'], { default: value, description: `Operation_PageBox: ${description}` }));

export const PageInterval = Type.Object(
  {
    even: opt(bool(true, 'include even-numbered pages')),
    odd: opt(bool(true, 'include odd-numbered pages')),
    pages: defaulted(Type.String({ default: '*', description: '"1,5-6,9", "last"; "*" or "" = all' })),
  },
  { description: 'Operation_PageInterval' },
);

export const BackgroundSettings = Type.Object(
  {
    opacity: defaulted(int({ default: 100, minimum: 0, maximum: 100, description: 'percent (100 = fully visible)' })),
    pages: opt(Type.Object({ pageInterval: opt(PageInterval) }, { description: 'Operation_PagesBackgroundBaseSettings' })),
    position: opt(
      Type.Object(
        {
          metrics: opt(Metrics),
          position: defaulted(
            Type.Enum(['custom', 'top_left', 'top_center', 'top_right', 'center_left', 'center_center', 'center_right', 'bottom_left', 'bottom_center', 'bottom_right'], {
              default: 'center_center',
              description: 'Operation_BackgroundPositionMode: as the watermark position (custom: top-left corner at x/y from the top-left of the page)',
            }),
          ),
          x: defaulted(Type.Number({ default: 0, minimum: 0 })),
          y: defaulted(Type.Number({ default: 0, minimum: 0 })),
        },
        { description: 'Operation_PositionBackgroundBaseSettings' },
      ),
    ),
    relativeToPage: opt(bool(true, "scale relative to the page (an image first fitted into it) instead of the layer's own size; a colour always fills the page")),
    replaceExisting: opt(bool(false, "remove the document's backgrounds first; false: a document with a background is refused (-14)")),
    rotation: defaulted(int({ default: 0, minimum: 0, maximum: 360, description: 'clockwise degrees' })),
    scale: defaulted(int({ default: 100, minimum: 0, description: 'percent' })),
    visibility: opt(
      Type.Object(
        { onPrint: opt(bool(true)), onScreen: opt(bool(true)) },
        { description: 'Operation_VisibilityBackgroundBaseSettings: an optional content group with view/print usage when either is false' },
      ),
    ),
  },
  { description: 'Operation_BackgroundBaseSettings' },
);

const FileData = base64FileData('Operation_BackgroundFileData', opt(Type.String({ description: 'Base64 of a PNG, JPEG, GIF, BMP, TIFF or WebP image (first frame)' })));

const Background = Type.Object(
  {
    add: opt(
      Type.Object(
        {
          colorBackground: opt(Type.Object({ color: opt(color('#FFFFFF')), settings: opt(BackgroundSettings) }, { description: 'Operation_ColorBackground' })),
          imageBackground: opt(Type.Object({ image: FileData, settings: opt(BackgroundSettings) }, { description: 'Operation_ImageBackground' })),
        },
        { description: 'Operation_AddBackground: the colour goes under the image when both are given' },
      ),
    ),
    remove: opt(Type.Object({ backgroundSelection: opt(Type.Object({}, { description: 'Operation_SelectionBackground: removes every background' })) }, { description: 'Operation_RemoveBackground' })),
  },
  { description: 'Operation_BackgroundToolboxOptions: add or remove, not both' },
);

export const Boxes = Type.Object(
  {
    remove: opt(
      Type.Array(
        Type.Object(
          {
            boxesRemove: opt(
              Type.Object(
                { box: opt(PageBox('crop_box', 'the box to remove; media_box is refused (-104): every page needs one')), pages: defaulted(Type.String({ default: '*' })) },
                { description: 'Operation_SelectionBox' },
              ),
            ),
          },
          { description: 'Operation_RemoveBoxes' },
        ),
      ),
    ),
    resize: opt(
      Type.Array(
        Type.Object(
          {
            boxesResize: opt(
              Type.Object(
                {
                  box: opt(PageBox('media_box', 'the box to set')),
                  dimensions: Type.Object(
                    {
                      height: defaulted(Type.Number({ default: 0, minimum: 0 })),
                      metrics: opt(Metrics),
                      width: defaulted(Type.Number({ default: 0, minimum: 0 })),
                      x: defaulted(Type.Number({ default: 0, minimum: 0, description: 'from the left edge of the MediaBox' })),
                      y: defaulted(Type.Number({ default: 0, minimum: 0, description: 'from the bottom edge of the MediaBox' })),
                    },
                    { description: 'Operation_DimensionsBoxesResize' },
                  ),
                  pages: defaulted(Type.String({ default: '', description: '"" or "*" = all' })),
                },
                { description: 'Operation_BoxesResize' },
              ),
            ),
          },
          { description: 'Operation_ResizeBoxes' },
        ),
      ),
    ),
  },
  { description: 'Operation_BoxesToolboxOptions: removals first, then resizes, each in array order' },
);

export const Slots = Type.Object(
  { center: defaulted(Type.String({ default: '' })), left: defaulted(Type.String({ default: '' })), right: defaulted(Type.String({ default: '' })) },
  {
    description:
      'Operation_HeaderFooterPositions: text with Acrobat-style placeholders: <<1>> the page number ("<<Page 1 of n>>", "<<1/n>>": n = page count), <<dd.mm.yyyy>>, <<m/d/yy>>, <<mmmm d, yyyy>> the date',
  },
);

export const HeaderFooter = Type.Object(
  {
    add: opt(
      Type.Object(
        {
          headerFooterContent: opt(
            Type.Object(
              {
                date: opt(
                  Type.Object(
                    {
                      day: defaulted(int({ default: 0, minimum: 0, maximum: 31 })),
                      month: defaulted(int({ default: 0, minimum: 0, maximum: 12 })),
                      year: defaulted(int({ default: 0, minimum: 0 })),
                    },
                    { description: "Operation_HeaderFooterDate: the date for date placeholders; 0 parts are today's" },
                  ),
                ),
                firstPageNumber: defaulted(int({ default: 1, minimum: 1, description: 'the number of the first selected page; later pages count on from it' })),
                font: opt(
                  Type.Object(
                    {
                      color: opt(color('#000000')),
                      name: defaulted(Type.String({ default: '', description: 'as the watermark font name ("" = Helvetica)' })),
                      size: defaulted(int({ default: 10, minimum: 1, maximum: 1296 })),
                      underline: opt(bool(false)),
                    },
                    { description: 'Operation_OptionsFont' },
                  ),
                ),
                footer: opt(Slots),
                header: opt(Slots),
                margin: opt(
                  Type.Object(
                    {
                      bottom: defaulted(Type.Number({ default: 0 })),
                      left: defaulted(Type.Number({ default: 0 })),
                      metrics: opt(Metrics),
                      right: defaulted(Type.Number({ default: 0 })),
                      top: defaulted(Type.Number({ default: 0 })),
                    },
                    { description: "Operation_OptionsMargin: distance of the header's top and the footer's bottom from the page edges, and of the left/right texts" },
                  ),
                ),
                pages: opt(Type.Object({ pageInterval: opt(PageInterval) }, { description: 'Operation_PagesHeaderFooter' })),
                replaceExisting: opt(bool(false, "remove the document's headers and footers first; false: a document with them is refused (-14)")),
              },
              { description: 'Operation_HeaderFooter' },
            ),
          ),
        },
        { description: 'Operation_AddHeaderFooter' },
      ),
    ),
    remove: opt(
      Type.Object(
        { headerFooterSelection: opt(Type.Object({}, { description: 'Operation_SelectionHeaderFooter: removes every header and footer' })) },
        { description: 'Operation_RemoveHeaderFooter' },
      ),
    ),
  },
  { description: 'Operation_HeaderFooterToolboxOptions: add or remove, not both' },
);

export const Transition = Type.Object(
  {
    autoScroll: opt(bool(false, 'advance to the next page automatically in a presentation')),
    autoScrollTime: defaulted(Type.Number({ default: 0, minimum: 0, description: 'seconds before advancing (page /Dur)' })),
    direction: defaulted(
      Type.Enum(['leftToRight', 'bottomToTop', 'rightToLeft', 'topToBottom', 'topLeftToBottomRight', 'none'], {
        default: 'none',
        description: 'Operation_TransitionDirection: used by the styles that move in that direction (PDF 32000-1, Table 162), otherwise not applicable',
      }),
    ),
    duration: defaulted(Type.Number({ default: 1, minimum: 0, description: 'seconds' })),
    flyAreaOpaque: opt(bool(false, 'fly only')),
    flyScale: defaulted(Type.Number({ default: 1, description: 'fly only' })),
    pages: defaulted(Type.String({ default: '', description: '"" or "*" = all' })),
    style: defaulted(
      Type.Enum(['blinds', 'box', 'cover', 'dissolve', 'fade', 'fly', 'glitter', 'push', 'split', 'uncover', 'wipe', 'none'], {
        default: 'none',
        description: 'Operation_TransitionStyle (none = replace)',
      }),
    ),
  },
  { description: 'Operation_Transition' },
);

export const PageTransitions = Type.Object(
  {
    add: opt(Type.Array(Type.Object({ pageTransition: opt(Transition) }, { description: 'Operation_AddPageTransitions' }))),
    remove: opt(
      Type.Array(
        Type.Object(
          { transitionSelection: opt(Type.Object({ pages: defaulted(Type.String({ default: '', description: '"" or "*" = all' })) }, { description: 'Operation_SelectionTransition' })) },
          { description: 'Operation_RemovePageTransitions' },
        ),
      ),
    ),
  },
  { description: 'Operation_PageTransitionsToolboxOptions: removals first, then additions, each in array order' },
);

const ViewerPreferences = Type.Object(
  {
    centerWindow: opt(bool(false)),
    displayDocTitle: opt(bool(false)),
    duplex: defaulted(Type.Enum(['none', 'simplex', 'duplexFlipShortEdge', 'duplexFlipLongEdge'], { default: 'none', description: 'Operation_Duplex' })),
    fitWindow: opt(bool(false)),
    hideMenuBar: opt(bool(false)),
    hideToolbar: opt(bool(false)),
    hideWindowUI: opt(bool(false)),
    nonFullScreenPageMode: defaulted(Type.Enum(['none', 'outlines', 'thumbnails', 'optionalContents'], { default: 'none', description: 'Operation_NonFullScreenPageMode' })),
    numCopies: defaulted(int({ default: 1, minimum: 1 })),
    printArea: opt(PageBox('crop_box', 'print area')),
    printClip: opt(PageBox('crop_box', 'print clip')),
    printPageRange: defaulted(Type.String({ default: '', description: 'pages preselected for printing, "1,5-6,9"; "" or "*" = all' })),
    printScaling: defaulted(Type.Enum(['readerDefault', 'noPrintScaling'], { default: 'readerDefault', description: 'Operation_PrintScale' })),
    printTraySelection: defaulted(Type.Enum(['readerDefault', 'byPDFSize'], { default: 'readerDefault', description: 'Operation_PrintTraySelection' })),
    textDirection: defaulted(Type.Enum(['leftToRight', 'rightToLeft'], { default: 'leftToRight', description: 'Operation_TextDirection' })),
    viewArea: opt(PageBox('crop_box', 'view area')),
    viewClip: opt(PageBox('crop_box', 'view clip')),
  },
  { description: 'Operation_ViewerPreferences' },
);

export const optionsOptions = Type.Object(
  {
    background: opt(Background),
    boxes: opt(Boxes),
    headerFooter: opt(HeaderFooter),
    initialPage: defaulted(int({ default: 1, minimum: 1, description: 'page shown when the document opens (/OpenAction)' })),
    initialView: defaulted(Type.Enum(['none', 'outlines', 'thumbnails', 'fullscreen', 'layers', 'attachments'], { default: 'none', description: 'Operation_InitialView (/PageMode)' })),
    language: defaulted(Type.String({ default: '', description: 'RFC 3066 language tag (/Lang), e.g. "de-DE"; "" leaves it as it is' })),
    magnification: defaulted(
      Type.Enum(['none', 'fitWidth', 'fitVisible', 'fitHeight', 'fitPage', 'fitActual', 'zoom'], { default: 'fitWidth', description: 'Operation_Magnification (/OpenAction destination)' }),
    ),
    magnificationZoom: defaulted(int({ default: 100, minimum: 0, maximum: 6400, description: 'percent, for magnification zoom' })),
    pageLayout: defaulted(
      Type.Enum(['singlePage', 'singlePageContinous', 'twoPages', 'twoPagesRight', 'twoPagesContinous', 'twoPagesContinousRight'], {
        default: 'singlePage',
        description: 'Operation_PageLayout (/PageLayout)',
      }),
    ),
    pageTransitions: opt(PageTransitions),
    viewerPreferences: opt(ViewerPreferences),
  },
  { description: 'Operation_ToolboxOptions.options' },
);

export type OptionsOptions = Options<typeof optionsOptions>;
