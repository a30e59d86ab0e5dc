import Type from 'typebox';
import { withDefault, type Options } from '../../option-schema.js';
import { bool, FileData, opt, str } from '../schema-types.js';

const FormsFormat = (description: string) => withDefault(Type.Enum(['xml', 'fdf', 'xfdf', 'xdp'], { default: 'xml', description: `Operation_FormsFormat: ${description}` }));

/**
 * `Operation_ToolboxForms.forms` (reference §10.9.6): AcroForm data. The formats: xml = Acrobat's
 * "export data as XML" (`<fields>` with one element per field, nested by name parts), fdf and xfdf
 * (ISO 19444-1), xdp = that XML in an XDP package (`xfa:datasets/xfa:data`). `export` replaces the
 * document with the data file (reference §5.4). The sub-operations run in the order import →
 * flatten → export; export cannot be combined with flattening (its result is no PDF). Radio buttons
 * are exported with their export value (/Opt) where they have one; import takes it or the state name.
 */
export const formsOptions = Type.Object(
  {
    import: opt(
      Type.Object(
        {
          data: opt(FileData('Operation_FormsFileData (required)')),
          format: opt(FormsFormat('the format of data')),
          flatten: opt(bool(false, 'turn the fields into page content after filling them')),
        },
        { description: 'Operation_FormsImport' },
      ),
    ),
    export: opt(
      Type.Object(
        {
          format: opt(FormsFormat('the format of the result')),
          fdfFileName: opt(str('the PDF file the data refers to (FDF /F, XFDF <f href>, XDP <pdf href>)')),
        },
        { description: 'Operation_FormsExport' },
      ),
    ),
    flatten: opt(Type.Object({}, { description: 'Operation_FormsFlatten: every field becomes page content and the form is removed' })),
  },
  { description: 'Operation_ToolboxForms.forms' },
);

export type FormsOptions = Options<typeof formsOptions>;
