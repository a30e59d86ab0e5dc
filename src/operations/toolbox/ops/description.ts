import { QuireError } from '../../../core/errors.js';
import { DocumentEditError, editContext, editDescription, parseDate, type InfoValue } from '../../../engines/pdf-edit/document/index.js';
import type { ToolboxOperation } from '../operation.js';
import type { DescriptionOptions } from './description.schema.js';

/** The members and the information entries they write. */
const MEMBERS = [
  ['title', 'Title'],
  ['author', 'Author'],
  ['subject', 'Subject'],
  ['keywords', 'Keywords'],
  ['creator', 'Creator'],
  ['producer', 'Producer'],
] as const;

/**
 * `description`: writes the document information (title, author, subject, keywords, creator,
 * producer, custom entries) and keeps the XMP metadata in step. Empty strings are ignored unless
 * `allowEmptyValues`, which makes them remove the field. The modification date becomes now.
 */
export const descriptionOperation: ToolboxOperation<DescriptionOptions> = {
  name: 'description',
  needsPdf: true,
  async run(input, options, context, field) {
    const allowEmpty = options.allowEmptyValues;
    const set = new Map<string, InfoValue>();
    const remove = new Set<string>();
    const clear = (key: string): void => {
      set.delete(key);
      remove.add(key);
    };
    for (const [member, key] of MEMBERS) {
      const value = options[member];
      if (value !== '') set.set(key, { kind: 'text', text: value });
      else if (allowEmpty) clear(key);
    }
    for (const [index, entry] of (options.custom ?? []).entries()) {
      const at = `${field}.custom[${index}]`;
      const key = customKey(entry.key, `${at}.key`);
      const standard = MEMBERS.find(([, name]) => name === key);
      if (standard) throw new QuireError('PARAMETER', `Invalid parameter ${at}.key: "${key}" is set with the member ${field}.${standard[0]}.`);
      if (entry.remove) {
        clear(key);
        continue;
      }
      const value = entry.value;
      if (value === '') {
        if (allowEmpty) clear(key);
        continue;
      }
      set.set(key, customValue(key, value, `${at}.value`));
      remove.delete(key);
    }
    const output = context.scratch('pdf');
    const edit = editContext({ qpdf: context.engines.qpdf, timeoutMs: context.engines.toolTimeoutMs, deadline: context.deadline, scratch: context.scratch });
    try {
      await editDescription(input.path, output, { set, remove, modified: new Date() }, edit);
    } catch (error) {
      if (error instanceof DocumentEditError && error.kind === 'invalidOption') throw new QuireError('PARAMETER', `Invalid parameter ${field}: ${error.message}`);
      throw error;
    }
    return { path: output, type: input.type };
  },
};

/** An information dictionary key: a PDF name of at most 127 bytes, without the slash. */
function customKey(raw: string, at: string): string {
  const key = raw.trim().replace(/^\//, '');
  if (key === '') throw new QuireError('PARAMETER', `Invalid parameter ${at}: required.`);
  if (/[\u0000-\u0020\u007f]/.test(key)) throw new QuireError('PARAMETER', `Invalid parameter ${at}: "${key}" contains white space or control characters.`);
  if (Buffer.byteLength(key, 'utf8') > 127) throw new QuireError('PARAMETER', `Invalid parameter ${at}: longer than 127 bytes.`);
  return key;
}

/** Dates and the trapping flag have their own types in the information dictionary; everything else is text. */
function customValue(key: string, value: string, at: string): InfoValue {
  if (key === 'CreationDate' || key === 'ModDate') {
    const date = parseDate(value);
    if (!date) throw new QuireError('PARAMETER', `Invalid parameter ${at}: ${key} must be a date such as "2024-05-01T10:00:00Z" or "D:20240501100000Z".`);
    return { kind: 'date', date };
  }
  if (key === 'Trapped') {
    const trapped = ['True', 'False', 'Unknown'].find((v) => v.toLowerCase() === value.toLowerCase());
    if (!trapped) throw new QuireError('PARAMETER', `Invalid parameter ${at}: Trapped must be True, False or Unknown.`);
    return { kind: 'name', name: trapped };
  }
  return { kind: 'text', text: value };
}
