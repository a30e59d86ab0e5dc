import { PDFBool, PDFName, PDFRef, type PDFDocument, type PDFForm, type PDFObject } from '@cantoo/pdf-lib';
import { unsupported } from '../annotations/errors.js';
import { AppearanceBurner } from '../annotations/flatten.js';
import { dictOf } from '../annotations/pdf-values.js';
import { annotationsOf } from '../annotations/selection.js';
import { drawable, hasVisibleValue } from './form-fields.js';

/**
 * Form flattening: every widget's current appearance becomes page content and the form is gone
 * (no /AcroForm, no widget annotations). Appearances are brought up to date first (missing ones, or
 * all of them when /NeedAppearances says the stored ones may be stale). A field whose value cannot
 * be drawn (characters outside the standard fonts) is refused rather than flattened to nothing.
 */
export function flattenForm(document: PDFDocument, form: PDFForm | undefined, field: string): number {
  const { context } = document;
  if (form) {
    const stale = form.acroForm.dict.lookup(PDFName.of('NeedAppearances')) === PDFBool.True;
    const font = form.getDefaultFont();
    const charset = new Set(font.getCharacterSet());
    for (const formField of form.getFields()) {
      if (stale) form.markFieldAsDirty(formField.ref);
      if (!formField.needsAppearancesUpdate()) continue;
      if (!drawable(formField, charset)) {
        if (!hasVisibleValue(formField)) continue;
        throw unsupported(
          `${field}: field "${formField.getName()}"`,
          "its value has characters the server's fonts (WinAnsi) cannot draw; flattening would show them wrongly. Flatten in a viewer, or change the value.",
        );
      }
      formField.defaultUpdateAppearances(font);
    }
  }
  const burner = new AppearanceBurner(document);
  let count = 0;
  for (let pageNumber = 1; pageNumber <= document.getPageCount(); pageNumber++) {
    const widgets = annotationsOf(document, pageNumber).filter((a) => a.subtype === 'Widget');
    if (widgets.length === 0) continue;
    for (const widget of widgets) burner.burn(widget.page, widget.dict);
    const annots = widgets[0]!.page.node.Annots();
    const doomed = new Set<PDFObject>(widgets.map((w) => w.ref ?? w.dict));
    if (annots) for (let i = annots.size() - 1; i >= 0; i--) if (doomed.has(annots.get(i))) annots.remove(i);
    for (const widget of widgets) if (widget.ref instanceof PDFRef) context.delete(widget.ref);
    count += widgets.length;
  }
  burner.finish();
  // The field dictionaries are unreachable now; the caller drops them with the other garbage.
  if (dictOf(context, document.catalog.get(PDFName.of('AcroForm')))) document.catalog.delete(PDFName.of('AcroForm'));
  return count;
}
