import { PDFButton, PDFCheckBox, PDFDropdown, PDFName, PDFOptionList, PDFRadioGroup, PDFSignature, PDFTextField, type PDFDocument, type PDFField, type PDFForm } from '@cantoo/pdf-lib';
import { invalid, unsupported } from '../annotations/errors.js';
import { arrayOf, dictOf, textOf } from '../annotations/pdf-values.js';
import type { FieldData, FieldOutput } from './data-formats.js';

/**
 * AcroForm fields through pdf-lib's form API: reading their values for export and setting them
 * from imported data, with new appearance streams for what changed.
 */

/**
 * The document's form, or undefined when it has none (pdf-lib's getForm() would create one). A
 * dynamic XFA form (no AcroForm fields) is refused; in a hybrid form the AcroForm fields are the
 * data and the XFA copy, which would go stale, is removed (pdf-lib does the same, with a warning).
 */
export function openForm(document: PDFDocument, field: string): PDFForm | undefined {
  const { context } = document;
  const acroForm = dictOf(context, document.catalog.get(PDFName.of('AcroForm')));
  if (!acroForm) return undefined;
  if (acroForm.has(PDFName.of('XFA'))) {
    const fields = arrayOf(context, acroForm.get(PDFName.of('Fields')));
    if (!fields || fields.size() === 0) {
      throw unsupported(`${field} on a dynamic XFA form`, 'its fields exist only in XFA, which the server cannot read or fill.');
    }
    acroForm.delete(PDFName.of('XFA'));
  }
  return document.getForm();
}

/** Every field's data, in the form's order; push buttons and signatures carry none. */
export function readFieldData(form: PDFForm | undefined): FieldOutput[] {
  if (!form) return [];
  const result: FieldOutput[] = [];
  for (const field of form.getFields()) {
    if (field instanceof PDFButton || field instanceof PDFSignature) continue;
    const name = field.getName();
    if (field instanceof PDFTextField) {
      let text: string | undefined;
      try {
        text = field.getText();
      } catch {
        // Rich text: the plain value is still in /V.
        text = textOf(field.acroField.dict.lookup(PDFName.of('V')));
      }
      result.push({ name, values: text ? [text] : [], kind: 'string' });
    } else if (field instanceof PDFCheckBox || field instanceof PDFRadioGroup) {
      const value = field.acroField.dict.lookup(PDFName.of('V'));
      let state = value instanceof PDFName ? value.decodeText() : 'Off';
      // Radio buttons with /Opt name their states 0, 1, …: the export value is what the data means.
      if (field instanceof PDFRadioGroup && state !== 'Off') {
        const index = field.acroField.getOnValues().findIndex((v) => v.decodeText() === state);
        const exported = index >= 0 ? field.acroField.getExportValues()?.[index]?.decodeText() : undefined;
        if (exported !== undefined) state = exported;
      }
      result.push({ name, values: [state], kind: 'name' });
    } else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
      result.push({ name, values: field.getSelected(), kind: 'string' });
    }
  }
  return result;
}

/** Name variants a data file may use: as is, and without XFA's "[0]" indexes. */
const plainName = (name: string) => name.replace(/\[0\]/g, '');

export interface ImportResult {
  changed: PDFField[];
  /** Fields whose new value the standard fonts cannot draw: left for the viewer (NeedAppearances). */
  undrawn: string[];
}

/**
 * Sets the fields named in `data`. Unknown names and values a field cannot take are errors (-14),
 * not skipped: a silently half-filled form is worse than a refused one. `lenient` (XDP, whose data
 * also holds nodes of the XFA template that are no fields) lets unknown names pass.
 */
export function applyFieldData(form: PDFForm, data: readonly FieldData[], field: string, lenient: boolean): ImportResult {
  const fields = form.getFields();
  const byName = new Map<string, PDFField>();
  for (const f of fields) byName.set(f.getName(), f);
  for (const f of fields) if (!byName.has(plainName(f.getName()))) byName.set(plainName(f.getName()), f);
  const find = (name: string): PDFField | undefined => {
    const parts = name.split('.');
    // A data root element (<fields>, an XFA root subform) may precede the field names.
    for (const candidate of [name, plainName(name), parts.slice(1).join('.'), plainName(parts.slice(1).join('.'))]) {
      const found = candidate === '' ? undefined : byName.get(candidate);
      if (found) return found;
    }
    return undefined;
  };
  const unknown: string[] = [];
  const changed = new Set<PDFField>();
  for (const entry of data) {
    const target = find(entry.name);
    if (!target) {
      unknown.push(entry.name);
      continue;
    }
    setValue(target, entry.values, `${field}: field "${target.getName()}"`);
    changed.add(target);
  }
  if (unknown.length > 0 && !lenient) {
    const names = fields.map((f) => f.getName());
    throw invalid(
      field,
      `the form has no field ${unknown
        .slice(0, 5)
        .map((n) => `"${n}"`)
        .join(', ')}${unknown.length > 5 ? ` (and ${unknown.length - 5} more)` : ''}; its fields are ${
        names
          .slice(0, 20)
          .map((n) => `"${n}"`)
          .join(', ') || 'none'
      }.`,
    );
  }
  if (changed.size === 0) throw invalid(field, "the data names none of the form's fields.");
  const undrawn = updateAppearances(form, [...changed]);
  return { changed: [...changed], undrawn };
}

function setValue(field: PDFField, values: readonly string[], where: string): void {
  const first = values[0] ?? '';
  if (field instanceof PDFTextField) {
    const text = values.join('\n');
    const max = field.getMaxLength();
    if (max !== undefined && text.length > max) throw invalid(where, `the value has ${text.length} characters; the field takes at most ${max}.`);
    try {
      field.setText(text === '' ? undefined : text);
    } catch (error) {
      throw invalid(where, (error as Error).message);
    }
  } else if (field instanceof PDFCheckBox) {
    const on = field.acroField.getOnValue()?.decodeText() ?? 'Yes';
    if (first === '' || first === 'Off') field.uncheck();
    else if (first === on || first.toLowerCase() === on.toLowerCase() || ['true', 'yes', 'on', '1'].includes(first.toLowerCase())) field.check();
    else throw invalid(where, `a check box takes "${on}" or "Off", not "${first}".`);
  } else if (field instanceof PDFRadioGroup) {
    if (first === '' || first === 'Off') {
      field.clear();
      return;
    }
    const onValues = field.acroField.getOnValues();
    const exportValues = field.acroField.getExportValues();
    const index = onValues.findIndex((v) => v.decodeText() === first);
    const exportIndex = exportValues ? exportValues.findIndex((v) => v.decodeText() === first) : -1;
    const chosen = index >= 0 ? onValues[index] : exportIndex >= 0 ? onValues[exportIndex] : undefined;
    if (!chosen) throw invalid(where, `the radio buttons take ${[...new Set(field.getOptions())].map((o) => `"${o}"`).join(', ')} or "Off", not "${first}".`);
    // Sets /V and each widget's /AS; the on and off appearances already exist.
    field.acroField.setValue(chosen);
  } else if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    const chosen = values.filter((v) => v !== '');
    if (chosen.length === 0) {
      field.clear();
      return;
    }
    const options = field.getOptions();
    const foreign = chosen.filter((v) => !options.includes(v));
    const editable = field instanceof PDFDropdown && field.isEditable();
    if (foreign.length > 0 && !editable) throw invalid(where, `"${foreign[0]}" is not one of its options (${options.map((o) => `"${o}"`).join(', ')}).`);
    if (chosen.length > 1 && !field.isMultiselect()) throw invalid(where, 'the field takes one value, not several.');
    field.select(chosen);
  } else if (field instanceof PDFSignature) {
    throw unsupported(where, 'signature fields are signed, not filled from data.');
  } else {
    throw invalid(where, 'a push button has no value.');
  }
}

/**
 * New appearances for the changed fields, drawn with Helvetica. A value Helvetica cannot draw
 * (outside WinAnsi; pdf-lib would silently draw "?") keeps no stale appearance: it is removed and
 * /NeedAppearances asks the viewer to draw the field.
 */
export function updateAppearances(form: PDFForm, fields: readonly PDFField[]): string[] {
  const font = form.getDefaultFont();
  const charset = new Set(font.getCharacterSet());
  const undrawn: string[] = [];
  for (const field of fields) {
    if (!field.needsAppearancesUpdate()) continue;
    if (!drawable(field, charset)) {
      undrawn.push(field.getName());
      for (const widget of field.acroField.getWidgets()) widget.dict.delete(PDFName.of('AP'));
      form.acroForm.dict.set(PDFName.of('NeedAppearances'), form.doc.context.obj(true));
      continue;
    }
    field.defaultUpdateAppearances(font);
  }
  return undrawn;
}

/** Whether every character the field's appearance shows is in the font. */
export function drawable(field: PDFField, charset: ReadonlySet<number>): boolean {
  const texts: string[] = [];
  if (field instanceof PDFTextField) {
    try {
      texts.push(field.getText() ?? '');
    } catch {
      texts.push(textOf(field.acroField.dict.lookup(PDFName.of('V'))) ?? '');
    }
  } else if (field instanceof PDFDropdown) {
    texts.push(field.getSelected().join('\n'));
  } else if (field instanceof PDFOptionList) {
    // Joined, not spread into push(...): a field may list more options than a call takes arguments.
    texts.push(field.getOptions().join('\n'), field.getSelected().join('\n'));
  }
  return texts.every((text) => [...text].every((char) => char === '\n' || char === '\r' || charset.has(char.codePointAt(0)!)));
}

/** Whether the field shows anything (a value or a state other than Off). */
export function hasVisibleValue(field: PDFField): boolean {
  if (field instanceof PDFTextField) {
    try {
      return (field.getText() ?? '') !== '';
    } catch {
      return true;
    }
  }
  if (field instanceof PDFDropdown || field instanceof PDFOptionList) return field.getSelected().length > 0;
  if (field instanceof PDFCheckBox || field instanceof PDFRadioGroup) {
    const value = field.acroField.dict.lookup(PDFName.of('V'));
    return value instanceof PDFName && value.decodeText() !== 'Off';
  }
  return true;
}
