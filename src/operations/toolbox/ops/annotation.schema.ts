import Type, { type TSchema } from 'typebox';
import { defaulted, withDefault, type Options } from '../../option-schema.js';
import { bool, color, FileData, int, opt, Point, Rectangle, str } from '../schema-types.js';

/**
 * `Operation_ToolboxAnnotation.annotation` (reference §10.9.1). The sub-operations run in the order
 * clear → remove → edit → add → comment, so a comment can answer an annotation added by the same call.
 */

/** The members every annotation kind has. */
const common = () => ({
  page: defaulted(int({ default: 1, minimum: 1, description: 'the page (add); ignored by edit, whose selection chooses the annotations' })),
  color: opt(color('#4800FF')),
  contents: opt(str('the annotation text (/Contents); in edit, "" keeps the current value')),
  creator: opt(str('author (/T); in edit, "" keeps the current value')),
  subject: opt(str('/Subj; in edit, "" keeps the current value')),
  name: opt(str('unique name (/NM); generated when empty on add, kept when empty on edit')),
  intents: opt(str('intent name (/IT), e.g. FreeTextCallout, LineArrow; in edit, "" keeps the current value')),
  opacity: defaulted(int({ default: 100, minimum: 0, maximum: 100, description: 'percent' })),
  hidden: opt(bool(false)),
  invisible: opt(bool(false)),
  locked: opt(bool(true)),
  printable: opt(bool(false)),
  rotatable: opt(bool(true)),
  viewable: opt(bool(true)),
  writable: opt(bool(true)),
  zoomable: opt(bool(true)),
});

const Border = Type.Object(
  {
    borderStyle: defaulted(Type.Enum(['solid', 'dashed'], { default: 'solid', description: 'Operation_BorderStyle' })),
    borderWidth: defaulted(int({ default: 1, minimum: 0, description: 'points' })),
    dashLength: defaulted(int({ default: 3, minimum: 1 })),
    gapLength: defaulted(int({ default: 3, minimum: 1 })),
  },
  { description: 'Operation_Border' },
);

const DrawMode = withDefault(Type.Enum(['fill', 'stroke', 'fillAndStroke'], { default: 'fillAndStroke', description: 'Operation_DrawMode' }));
const AppearanceGeneration = withDefault(
  Type.Enum(['Always', 'Never', 'nonStandard'], {
    default: 'nonStandard',
    description: 'Operation_AppearanceGeneration: Always = the server draws the appearance; Never = the viewer draws its own icon; nonStandard = drawn only for icons outside the PDF standard set',
  }),
);

const Quadrilateral = Type.Object(
  { point: opt(Type.Array(Point, { description: 'four points: top-left, top-right, bottom-left, bottom-right of the marked text' })) },
  { description: 'Operation_Quadrilateral' },
);

const AreaPosition = (name: string) =>
  Type.Object(
    {
      pathElement: opt(Type.Array(Rectangle, { description: 'marked areas as rectangles' })),
      quadrilateral: opt(Type.Array(Quadrilateral)),
    },
    { description: name },
  );

const RectanglePosition = (name: string) => Type.Object({ rectangle: opt(Rectangle) }, { description: name });

const AppearanceFileData = FileData('Operation_AppearanceFileData');
const AppearanceSource = Type.Object(
  {
    image: opt(Type.Object({ data: opt(AppearanceFileData), preserveAspectRatio: opt(bool(false)) }, { description: 'Operation_AppearanceImage: PNG, JPEG (other raster formats are converted)' })),
    pdf: opt(
      Type.Object(
        { data: opt(AppearanceFileData), page: defaulted(int({ default: 1, minimum: 1 })), preserveAspectRatio: opt(bool(false)) },
        { description: 'Operation_AppearancePdf: a page of this PDF is the appearance' },
      ),
    ),
    svg: opt(
      Type.Object(
        {
          data: opt(AppearanceFileData),
          preserveAspectRatio: opt(bool(false)),
          aspectRatioAxis: defaulted(Type.Enum(['x', 'y'], { default: 'x', description: 'Operation_Axis: the side of the rectangle kept when preserving the aspect ratio' })),
        },
        { description: 'Operation_AppearanceSvg (rasterised)' },
      ),
    ),
  },
  { description: 'Operation_AppearanceSource: exactly one of image, pdf, svg' },
);

const kinds = {
  circle: Type.Object(
    {
      ...common(),
      border: opt(Border),
      drawMode: opt(DrawMode),
      interiorColor: opt(color('#000000')),
      position: opt(RectanglePosition('Operation_PositionSimpleShapeAnnotation')),
    },
    { description: 'Operation_CircleAnnotation' },
  ),
  freetext: Type.Object(
    {
      ...common(),
      font: opt(
        Type.Object(
          {
            name: opt(str('Helvetica (default; also Arial, sans-serif), Times (Times New Roman, serif) or Courier (Courier New, monospace)')),
            size: defaulted(int({ default: 24, minimum: 1, maximum: 1296 })),
            bold: opt(bool(false)),
            italic: opt(bool(false)),
            color: opt(color('#A0A0A0')),
          },
          { description: 'Operation_FreeTextFont' },
        ),
      ),
      justification: defaulted(Type.Enum(['leftJustified', 'centered', 'rightJustified'], { default: 'leftJustified', description: 'Operation_Justification' })),
      position: opt(RectanglePosition('Operation_PositionFreeTextAnnotation')),
    },
    { description: 'Operation_FreeTextAnnotation: color is the frame colour' },
  ),
  line: Type.Object(
    {
      ...common(),
      border: opt(Border),
      start: opt(Point),
      end: opt(Point),
    },
    { description: 'Operation_LineAnnotation (start and end required on add)' },
  ),
  markup: Type.Object(
    {
      ...common(),
      markupType: defaulted(Type.Enum(['highlight', 'underline', 'strikeOut', 'squiggly'], { default: 'highlight', description: 'Operation_MarkupsAnnotation' })),
      position: opt(AreaPosition('Operation_PositionMarkupAnnotation')),
    },
    { description: 'Operation_MarkupAnnotation' },
  ),
  redact: Type.Object(
    {
      ...common(),
      interiorColor: opt(color('#000000', 'the fill of the area once the redaction is applied')),
      position: opt(AreaPosition('Operation_PositionRedactAnnotation')),
    },
    { description: 'Operation_RedactAnnotation: marks an area for redaction (the redact operation applies redactions)' },
  ),
  rubberstamp: Type.Object(
    {
      ...common(),
      appearanceGeneration: opt(AppearanceGeneration),
      icon: defaulted(
        Type.Enum(
          [
            'approved',
            'experimental',
            'notApproved',
            'asIs',
            'expired',
            'notForPublicRelease',
            'confidential',
            'final',
            'sold',
            'departmental',
            'forComment',
            'topSecret',
            'draft',
            'forPublicRelease',
            'unnamed',
          ],
          { default: 'draft', description: 'Operation_RubberStampIcon; unnamed uses customIconName' },
        ),
      ),
      customIconName: opt(str('the stamp name for icon "unnamed"')),
      normalAppearance: opt(AppearanceSource),
      position: opt(RectanglePosition('Operation_PositionRubberStampAnnotation')),
    },
    { description: 'Operation_RubberStampAnnotation' },
  ),
  square: Type.Object(
    {
      ...common(),
      border: opt(Border),
      drawMode: opt(DrawMode),
      interiorColor: opt(color('#000000')),
      position: opt(RectanglePosition('Operation_PositionSimpleShapeAnnotation')),
    },
    { description: 'Operation_SquareAnnotation' },
  ),
  text: Type.Object(
    {
      ...common(),
      appearanceGeneration: opt(AppearanceGeneration),
      icon: defaulted(
        Type.Enum(
          [
            'check',
            'checkmark',
            'circle',
            'comment',
            'cross',
            'crossHair',
            'insert',
            'key',
            'note',
            'help',
            'newParagraph',
            'paragraph',
            'rightArrow',
            'rightPointer',
            'star',
            'upArrow',
            'upLeftArrow',
            'unnamed',
          ],
          { default: 'note', description: 'Operation_TextAnnotationIcons; unnamed uses customIconName' },
        ),
      ),
      customIconName: opt(str('the icon name for icon "unnamed"')),
      initialOpen: opt(bool(true, "the note's pop-up is open when the document opens")),
      normalAppearance: opt(AppearanceSource),
      position: opt(Rectangle),
    },
    { description: 'Operation_TextAnnotation (a note)' },
  ),
};

const arrayOf = <T extends TSchema>(schema: T) => opt(Type.Array(schema));

const SelectionAnnotation = Type.Object(
  {
    objectKey: opt(Type.Object({ id: opt(str('object number of the annotation: "12", "12 0" or "12 0 R"')) }, { description: 'Operation_ObjectKeySelectionAnnotation' })),
    page: defaulted(int({ default: 1, minimum: 1 })),
    position: opt(Rectangle),
  },
  { description: 'Operation_SelectionAnnotation: the annotations of page whose object key matches and/or whose area overlaps position (all of the page when neither is given)' },
);

const Selection = (name: string) => Type.Object({ select: opt(Type.Array(SelectionAnnotation)) }, { description: name });

const commentBase = () => ({
  page: defaulted(int({ default: 1, minimum: 1 })),
  replyTo: opt(str('the annotation answered: its name (/NM) or object key')),
  creator: opt(str()),
  name: opt(str('name (/NM) of the new comment; generated when empty')),
  subject: opt(str()),
});

export const annotationOptions = Type.Object(
  {
    add: opt(
      Type.Object(
        {
          circle: arrayOf(kinds.circle),
          freetext: arrayOf(kinds.freetext),
          line: arrayOf(kinds.line),
          markup: arrayOf(kinds.markup),
          redact: arrayOf(kinds.redact),
          rubberstamp: arrayOf(kinds.rubberstamp),
          square: arrayOf(kinds.square),
          text: arrayOf(kinds.text),
        },
        { description: 'Operation_AddToolboxAnnotation' },
      ),
    ),
    edit: opt(
      Type.Object(
        {
          selection: opt(Selection('Operation_SelectionEdit (required)')),
          circle: opt(kinds.circle),
          freetext: opt(kinds.freetext),
          line: opt(kinds.line),
          markup: opt(kinds.markup),
          redact: opt(kinds.redact),
          rubberstamp: opt(kinds.rubberstamp),
          square: opt(kinds.square),
          text: opt(kinds.text),
        },
        { description: "Operation_EditToolboxAnnotation: the given kind's members replace those of the selected annotations of that kind; a position given moves them" },
      ),
    ),
    remove: opt(
      Type.Object(
        {
          selection: opt(Selection('Operation_SelectionRemove (required)')),
          flatten: opt(bool(false, 'draw the removed annotations into the page content')),
        },
        { description: 'Operation_RemoveToolboxAnnotation' },
      ),
    ),
    clear: opt(
      Type.Object(
        {
          pages: defaulted(Type.String({ default: '', description: 'pages to clear: "1-3,5", "last"; "" or "*" = all' })),
          flatten: opt(bool(false, 'draw the annotations into the page content before removing them')),
        },
        { description: 'Operation_ClearToolboxAnnotation: removes all annotations except form field widgets (see forms)' },
      ),
    ),
    comment: opt(
      Type.Object(
        {
          add: opt(
            Type.Object(
              {
                replyTo: arrayOf(Type.Object({ ...commentBase(), comment: opt(str('the reply text')) }, { description: 'Operation_ReplyToAnnotation' })),
                changeAnnotationState: arrayOf(
                  Type.Object(
                    {
                      ...commentBase(),
                      replyState: defaulted(Type.Enum(['accepted', 'rejected', 'cancelled', 'completed', 'none'], { default: 'none', description: 'Operation_ReplyState' })),
                    },
                    { description: 'Operation_ReplyStateAnnotation (review state)' },
                  ),
                ),
                markAnnotation: arrayOf(Type.Object({ ...commentBase(), markedState: opt(bool(true)) }, { description: 'Operation_MarkedStateAnnotation' })),
              },
              { description: 'Operation_AddComment' },
            ),
          ),
          edit: opt(
            Type.Object(
              {
                replyTo: arrayOf(
                  Type.Object(
                    {
                      objectKey: opt(Type.Object({ id: opt(str('object number of the reply')) }, { description: 'Operation_ObjectKeyReplyToAnnotationEdit (required)' })),
                      page: defaulted(int({ default: 1, minimum: 1 })),
                      comment: opt(str('new reply text; "" keeps it')),
                      creator: opt(str('"" keeps it')),
                      name: opt(str('"" keeps it')),
                      subject: opt(str('"" keeps it')),
                    },
                    { description: 'Operation_ReplyToAnnotationEdit' },
                  ),
                ),
              },
              { description: 'Operation_EditComment' },
            ),
          ),
        },
        { description: 'Operation_CommentToolboxAnnotation' },
      ),
    ),
  },
  { description: 'Operation_ToolboxAnnotation.annotation' },
);

export type AnnotationOptions = Options<typeof annotationOptions>;
