import Type, { type TSchema } from 'typebox';
import { defaulted, withDefault } from '../option-schema.js';

/**
 * Structures the `annotation` and `outline` toolbox operations share (reference §10.8, §10.9.17,
 * §10.9.23): rectangles and points with their unit and origin, colours, and the action and
 * destination families. They are inline objects (named by `description`), not registered
 * components, so other operations may define their own `Operation_Rectangle` without a clash.
 * Unknown members are allowed everywhere (reference §5.3).
 */

/** An optional member; one whose schema carries a `default` (`str()`, `bool()`, `withDefault()`, ...) is always present for the operation (see option-schema.ts). */
export const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
export const int = (options: Record<string, unknown> = {}) => Type.Integer({ format: 'int32', ...options });
export const str = (description?: string) => withDefault(Type.String({ default: '', ...(description ? { description } : {}) }));
export const bool = (value: boolean, description?: string) => withDefault(Type.Boolean({ default: value, ...(description ? { description } : {}) }));

/** `#RRGGBB` (the reference's pattern, anchored). */
export const color = (value: string, description?: string) => withDefault(Type.String({ pattern: '^#[0-9a-fA-F]{6}$', default: value, ...(description ? { description } : {}) }));

export const Metrics = (value: 'mm' | 'px' = 'mm') => withDefault(Type.Enum(['pt', 'pc', 'px', 'mm', 'in'], { default: value, description: 'Operation_Metrics: unit of the numbers (px = 1/96 in)' }));

export const Coordinates = withDefault(
  Type.Enum(['pdf', 'user'], {
    default: 'user',
    description:
      'Operation_Coordinates: user = origin at the top-left corner of the page as displayed (rotation applied), y downwards; pdf = origin at the bottom-left corner of the unrotated page, y upwards',
  }),
);

export const Rectangle = Type.Object(
  {
    coordinates: opt(Coordinates),
    metrics: opt(Metrics()),
    x: defaulted(Type.Number({ default: 0, minimum: 0 })),
    y: defaulted(Type.Number({ default: 0, minimum: 0 })),
    width: defaulted(Type.Number({ default: 0, minimum: 0 })),
    height: defaulted(Type.Number({ default: 0, minimum: 0 })),
  },
  { description: 'Operation_Rectangle: x/y is the corner nearest the origin (top-left for user coordinates, bottom-left for pdf)' },
);

export const Point = Type.Object(
  {
    coordinates: opt(Coordinates),
    metrics: opt(Metrics()),
    x: defaulted(Type.Number({ default: 0, minimum: 0 })),
    y: defaulted(Type.Number({ default: 0, minimum: 0 })),
  },
  { description: 'Operation_Point' },
);

export const FileSourceEnum = withDefault(Type.Enum(['value', 'uri'], { default: 'value', description: 'Operation_FileDataSource: only value (Base64) is accepted; uri is refused (-104)' }));

/** `{source, uri, value}` file data members. */
export const FileData = (name: string) =>
  Type.Object(
    {
      source: opt(FileSourceEnum),
      uri: opt(str()),
      value: opt(Type.String({ description: 'Base64 content' })),
    },
    { description: name },
  );

// ---- annotation selections used by actions ----

export const AnnotationSelection = Type.Object(
  {
    index: defaulted(int({ default: 0, minimum: 0, description: "position in the page's annotation list (0 = first), used when name is empty" })),
    name: opt(str('the annotation name (/NM)')),
    page: defaulted(int({ default: 1, minimum: 1 })),
  },
  { description: 'Operation_AnnotationSelection' },
);

export const FormFieldSelection = Type.Object({ name: opt(str('fully qualified field name')) }, { description: 'Operation_FormFieldSelection' });

export const FileSpecification = Type.Object(
  {
    description: opt(str()),
    resourceURL: opt(str('the file the action refers to (http, https or a relative file name)')),
    volatileFile: opt(bool(false)),
  },
  { description: 'Operation_FileSpecification' },
);

// ---- destinations (Operation_DestinationEvent: exactly one member) ----

const page = () => defaulted(int({ default: 1, minimum: 1 }));
const offset = (description: string) => defaulted(int({ default: 0, description }));

export const DestinationEvent = Type.Object(
  {
    zoomPage: opt(
      Type.Object(
        {
          page: page(),
          leftOffset: offset('distance from the left page edge'),
          topOffset: offset('distance from the top page edge'),
          metrics: opt(Metrics('px')),
          zoom: defaulted(int({ default: 100, minimum: 0, maximum: 6400, description: "percent; 0 keeps the viewer's zoom" })),
        },
        { description: 'Operation_ZoomDestination.zoomPage (/XYZ)' },
      ),
    ),
    fitPage: opt(Type.Object({ page: page() }, { description: 'Operation_FitPageDestination.fitPage (/Fit)' })),
    fitWidth: opt(Type.Object({ page: page(), topOffset: offset('distance from the top page edge'), metrics: opt(Metrics('px')) }, { description: 'Operation_FitWidthDestination.fitWidth (/FitH)' })),
    fitHeight: opt(
      Type.Object({ page: page(), leftOffset: offset('distance from the left page edge'), metrics: opt(Metrics('px')) }, { description: 'Operation_FitHeightDestination.fitHeight (/FitV)' }),
    ),
    fitRectangle: opt(
      Type.Object(
        {
          page: page(),
          leftOffset: offset('distance of the rectangle from the left page edge'),
          topOffset: offset('distance of the rectangle from the top page edge'),
          rightOffset: offset('distance of the rectangle from the right page edge'),
          bottomOffset: offset('distance of the rectangle from the bottom page edge'),
          metrics: opt(Metrics('px')),
        },
        { description: 'Operation_FitRectangleDestination.fitRectangle (/FitR)' },
      ),
    ),
    fitBoundingBox: opt(Type.Object({ page: page() }, { description: 'Operation_FitBoundingBoxDestination.fitBoundingBox (/FitB)' })),
    fitBoundingBoxWidth: opt(
      Type.Object(
        { page: page(), topOffset: offset('distance from the top page edge'), metrics: opt(Metrics('px')) },
        { description: 'Operation_FitBoundingBoxWidthDestination.fitBoundingBoxWidth (/FitBH)' },
      ),
    ),
    goToNamed: opt(Type.Object({ name: opt(str('a named destination of the document')) }, { description: 'Operation_NamedDestination.goToNamed' })),
  },
  { description: 'Operation_DestinationEvent: exactly one of its members' },
);

// ---- actions (Operation_ActionEvent: exactly one member) ----

export const ActionEvent = Type.Object(
  {
    goTo: opt(Type.Object({ destination: opt(DestinationEvent) }, { description: 'Operation_GoToDestinationAction.goTo' })),
    resolveURI: opt(Type.Object({ uri: opt(str('http, https, mailto, ftp or tel address')) }, { description: 'Operation_URIAction.resolveURI' })),
    executeNamed: opt(
      Type.Object({ namedOperation: opt(str('a viewer command: NextPage, PrevPage, FirstPage, LastPage, GoBack, GoForward, Print, ...')) }, { description: 'Operation_NamedAction.executeNamed' }),
    ),
    hideAnnotation: opt(Type.Object({ annotation: opt(Type.Array(AnnotationSelection)), hide: opt(bool(true)) }, { description: 'Operation_HideAction.hideAnnotation' })),
    submitForm: opt(
      Type.Object(
        {
          url: opt(str('http, https or mailto address the form data is sent to')),
          field: opt(Type.Array(FormFieldSelection)),
          exclude: opt(bool(false)),
          includeNoValueFields: opt(bool(false)),
          exportFormat: opt(bool(false)),
          getMethod: opt(bool(false)),
          submitCoordinates: opt(bool(false)),
          xfdf: opt(bool(false)),
          includeAppendSaves: opt(bool(false)),
          includeAnnotations: opt(bool(false)),
          submitPDF: opt(bool(false)),
          canonicalFormat: opt(bool(false)),
          excludeNonUserAnnotations: opt(bool(false)),
          excludeFDFSourceOrTargetFile: opt(bool(false)),
          embedForm: opt(bool(false)),
        },
        { description: 'Operation_SubmitFormAction.submitForm' },
      ),
    ),
    resetForm: opt(Type.Object({ field: opt(Type.Array(FormFieldSelection)), exclude: opt(bool(false)) }, { description: 'Operation_ResetFormAction.resetForm' })),
    importSchema: opt(Type.Object({ file: opt(FileSpecification) }, { description: 'Operation_ImportDataAction.importSchema (file required)' })),
    setLayerState: opt(
      Type.Object(
        {
          layerState: opt(
            Type.Array(
              Type.Object(
                {
                  referencedLayer: opt(Type.Array(Type.Object({ name: opt(str('layer (optional content group) name')) }, { description: 'Operation_OCGSelection' }))),
                  state: defaulted(Type.Enum(['ON', 'OFF', 'Toggle'], { default: 'ON', description: 'Operation_OCGState' })),
                },
                { description: 'Operation_LayerStateSetOCGStateAction' },
              ),
            ),
          ),
          preserveRadioButtonRelation: opt(bool(true)),
        },
        { description: 'Operation_SetOCGStateAction.setLayerState' },
      ),
    ),
    setTransition: opt(
      Type.Object(
        {
          style: defaulted(
            Type.Enum(['blinds', 'box', 'cover', 'dissolve', 'fade', 'fly', 'glitter', 'push', 'split', 'uncover', 'wipe', 'none'], {
              default: 'none',
              description: 'Operation_OutlineTransitionStyle',
            }),
          ),
          direction: defaulted(
            Type.Enum(['leftToRight', 'bottomToTop', 'rightToLeft', 'topToBottom', 'topLeftToBottomRight', 'none'], {
              default: 'leftToRight',
              description: 'Operation_OutlineTransitionDirection',
            }),
          ),
          duration: defaulted(Type.Number({ default: 1, minimum: 0, description: 'seconds' })),
          effectDimensionHorizontal: opt(bool(true)),
          flyAreaOpaque: opt(bool(false)),
          flyScale: defaulted(int({ default: 100, minimum: 0, maximum: 6400, description: 'percent (fly: start/end scale)' })),
          motionInward: opt(bool(true)),
          scaling: defaulted(int({ default: 100, minimum: 0, description: 'percent; PDF transitions have no such value: anything but 100 is refused (-104)' })),
        },
        { description: 'Operation_TransitionAction.setTransition' },
      ),
    ),
    playSound: opt(
      Type.Object(
        {
          sound: opt(Type.String({ description: 'Base64 raw samples (required)' })),
          encoding: defaulted(Type.Enum(['Raw', 'Signed', 'muLaw', 'ALaw'], { default: 'Raw', description: 'Operation_AudioEncoding' })),
          samplingRate: defaulted(Type.Number({ default: 8000, minimum: 1 })),
          sampleSize: defaulted(int({ default: 8, minimum: 1, description: 'bits per sample' })),
          soundChannels: defaulted(int({ default: 1, minimum: 1 })),
          volume: defaulted(int({ default: 100, minimum: -100, maximum: 100 })),
          synchronous: opt(bool(false)),
          repeat: opt(bool(false)),
          mix: opt(bool(false)),
        },
        { description: 'Operation_SoundAction.playSound' },
      ),
    ),
    executeJavaScript: opt(Type.Object({ jsAction: opt(str()) }, { description: 'Operation_JavaScriptAction.executeJavaScript: refused (-104): the server does not put scripts into documents' })),
    launchApplication: opt(
      Type.Object(
        {
          applicationPath: opt(FileSpecification),
          launchParameters: opt(
            Type.Object(
              {
                windows: opt(
                  Type.Object(
                    {
                      fileName: opt(str()),
                      directory: opt(str()),
                      arguments: opt(str()),
                      operation: defaulted(Type.Enum(['open', 'print'], { default: 'open', description: 'Operation_ApplicationOperation' })),
                    },
                    { description: 'Operation_WindowsLaunchParameter' },
                  ),
                ),
              },
              { description: 'Operation_LaunchParameter' },
            ),
          ),
          newWindow: defaulted(Type.Enum(['userPreferences', 'newWindow', 'sameWindow'], { default: 'userPreferences', description: 'Operation_OpenMode' })),
        },
        { description: 'Operation_LaunchApplicationAction.launchApplication: refused (-104): starting programs is unsafe' },
      ),
    ),
    goTo3DView: opt(
      Type.Object(
        {
          annotation: opt(AnnotationSelection),
          index: defaulted(int({ default: 0, minimum: 0 })),
          name: opt(str()),
          relative: defaulted(Type.Enum(['First', 'Last', 'Next', 'Previous', 'Default'], { default: 'Default', description: 'Operation_RelativeThreeDViewOperation' })),
        },
        { description: 'Operation_GoTo3DViewAction.goTo3DView: refused (-104): no 3D support' },
      ),
    ),
    goToThread: opt(
      Type.Object(
        {
          page: defaulted(int({ default: 1, minimum: 1 })),
          threadIndex: defaulted(int({ default: 0, minimum: 0 })),
          threadTitle: opt(str()),
          beadIndex: defaulted(int({ default: 0, minimum: 0 })),
        },
        { description: 'Operation_ThreadAction.goToThread: refused (-104): article threads are not supported' },
      ),
    ),
  },
  { description: 'Operation_ActionEvent: exactly one of its members' },
);
