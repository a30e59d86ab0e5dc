import { isPasswordProtectedOffice } from '../../engines/format/office-protection.js';
import type { OfficeConverter } from '../../engines/contracts.js';
import { UnoJobError, type UnoJob } from '../../engines/libreoffice/uno-worker.js';
import type { ConversionSettings } from './options.js';

/** LibreOffice accepts these maximum image resolutions only; a request is rounded down to one of them. */
const LIBREOFFICE_RESOLUTIONS = [75, 150, 300, 600, 1200];

/** PDF/A levels LibreOffice's own export writes (SelectPdfVersion). */
export const NATIVE_PDFA_LEVELS: Record<string, number> = { '1b': 1, '2b': 2, '3b': 3 };

/** LibreOffice's PDF export options for the converter settings. */
export function officeFilterData(settings: ConversionSettings, pdfaLevel: string | undefined): UnoJob['filterData'] {
  const data: UnoJob['filterData'] = {
    EmbedStandardFonts: settings.embedFonts,
    ExportFormFields: settings.formFields,
    Quality: settings.jpegQuality,
    UseLosslessCompression: false,
  };
  if (settings.maxDpi !== undefined) {
    const dpi = settings.maxDpi;
    data.ReduceImageResolution = true;
    data.MaxImageResolution = [...LIBREOFFICE_RESOLUTIONS].reverse().find((r) => r <= dpi) ?? LIBREOFFICE_RESOLUTIONS[0]!;
  }
  if (pdfaLevel !== undefined) {
    data.SelectPdfVersion = NATIVE_PDFA_LEVELS[pdfaLevel]!;
    // PDF/A needs every font embedded, the standard 14 included.
    data.EmbedStandardFonts = true;
  }
  if (settings.options.pdfa?.convert?.autoTagging) data.UseTaggedPDF = true;
  return data;
}

/** CSV/TSV through Calc: separator, quote, UTF-8 (76), start at line 1 (LibreOffice's CSV filter options). */
export function delimitedImport(kind: 'csv' | 'tsv'): Pick<UnoJob, 'inputFilter' | 'inputFilterOptions'> {
  return { inputFilter: 'Text - txt - csv (StarCalc)', inputFilterOptions: `${kind === 'tsv' ? 9 : 44},34,76,1,,0,false,true,true` };
}

export async function convertOffice(engine: OfficeConverter, job: UnoJob, key: string): Promise<void> {
  try {
    await engine.convert(job, { key });
  } catch (error) {
    // LibreOffice says only "cannot load" for a protected document: find out whether that is why.
    if (error instanceof UnoJobError && error.kind === 'load' && (await isPasswordProtectedOffice(job.input).catch(() => false))) {
      throw new UnoJobError('password', 'the document is password protected');
    }
    throw error;
  }
}
