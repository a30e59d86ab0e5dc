import { writeFile } from 'node:fs/promises';
import { QuireError } from '../../../core/errors.js';
import { fileTypeByKey } from '../../../core/file-types.js';
import { editPdf, readPdf } from '../../../engines/pdf-edit/annotations/edit-pdf.js';
import { parseFormData, writeFormData } from '../../../engines/pdf-edit/forms/data-formats.js';
import { flattenForm } from '../../../engines/pdf-edit/forms/flatten.js';
import { applyFieldData, openForm, readFieldData } from '../../../engines/pdf-edit/forms/form-fields.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxOperation, WorkFile } from '../operation.js';
import type { FormsOptions } from './forms.schema.js';

/**
 * `forms`: import → flatten → export. Importing fills the AcroForm fields from a data file (with new
 * appearances for what changed); flatten turns the fields into page content; export replaces the
 * document with the form data (reference §5.4), so it cannot be combined with flattening.
 */
export const formsOperation: ToolboxOperation<FormsOptions> = {
  name: 'forms',
  needsPdf: true,
  async run(input, options, context, field) {
    const { import: importing, export: exporting, flatten } = options;
    if (!importing && !exporting && !flatten) throw new QuireError('PARAMETER', `Invalid parameter ${field}: give import, export or flatten.`);
    const flattens = flatten !== undefined || importing?.flatten === true;
    if (exporting && flattens) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: export makes the form data the result, so the form cannot also be flattened; run flatten in a separate step.`);
    }
    const data = importing ? decodeFileData(importing.data, `${field}.import.data`) : undefined;

    let current: WorkFile = input;
    if (importing || flattens) {
      const output = context.scratch('pdf');
      await editPdf(
        current.path,
        output,
        async (document) => {
          const form = openForm(document, field);
          if (importing) {
            if (!form) throw new QuireError('PARAMETER', `Invalid parameter ${field}.import: the document has no form fields to fill.`);
            const entries = await parseFormData(importing.format, data!, `${field}.import.data`);
            applyFieldData(form, entries, `${field}.import.data`, importing.format === 'xdp');
          }
          if (flattens) flattenForm(document, form, flatten !== undefined ? `${field}.flatten` : `${field}.import.flatten`);
        },
        context.call,
      );
      current = { path: output, type: input.type };
    }
    if (exporting) {
      const fields = await readPdf(current.path, (document) => readFieldData(openForm(document, `${field}.export`)), context.call);
      const output = context.scratch(exporting.format);
      await writeFile(output, writeFormData(exporting.format, fields, exporting.fdfFileName));
      // FDF is no type of the table; the stored document's type is detected from the content.
      current = { path: output, type: fileTypeByKey(exporting.format === 'fdf' ? 'unknown' : 'xml') };
    }
    return current;
  },
};
