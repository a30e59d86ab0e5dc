import { QuireError } from '../../../core/errors.js';
import { editPdf } from '../../../engines/pdf-edit/annotations/edit-pdf.js';
import { AnnotationEditor } from '../../../engines/pdf-edit/annotations/editor.js';
import type { AppearanceSource } from '../../../engines/pdf-edit/annotations/external-appearance.js';
import { ANNOTATION_KINDS, type KindSpecs } from '../../../engines/pdf-edit/annotations/kinds.js';
import { decodeFileData } from '../file-data.js';
import type { ToolboxOperation } from '../operation.js';
import { selectPages } from '../pages.js';
import type { AnnotationOptions } from './annotation.schema.js';

/** `Operation_AppearanceSource` as the client sends it (validated, defaults filled). */
type AppearanceSourceOptions = NonNullable<NonNullable<AnnotationOptions['add']>['text']>[number]['normalAppearance'] & object;

/**
 * `annotation`: clear → remove → edit → add → comment, on one pdf-lib load of the document (so a
 * comment can answer an annotation added by the same call, by its name).
 */
export const annotationOperation: ToolboxOperation<AnnotationOptions> = {
  name: 'annotation',
  needsPdf: true,
  async run(input, options, context, field) {
    const { add, edit, remove, clear, comment } = options;
    if (!add && !edit && !remove && !clear && !comment) {
      throw new QuireError('PARAMETER', `Invalid parameter ${field}: give add, edit, remove, clear or comment.`);
    }
    const output = context.scratch('pdf');
    await editPdf(
      input.path,
      output,
      async (document) => {
        const editor = new AnnotationEditor(document);
        if (clear) editor.clear(selectPages(clear.pages, editor.pageCount, `${field}.clear.pages`), clear.flatten);
        if (remove) editor.remove(remove.selection?.select, remove.flatten, `${field}.remove`);
        if (edit) {
          const kinds: Partial<KindSpecs> = {};
          for (const kind of ANNOTATION_KINDS) {
            const spec = edit[kind];
            if (spec) (kinds as Record<string, unknown>)[kind] = withAppearance(spec, `${field}.edit.${kind}`);
          }
          await editor.edit(edit.selection?.select, kinds, `${field}.edit`);
        }
        if (add) {
          for (const kind of ANNOTATION_KINDS) {
            for (const [index, spec] of (add[kind] ?? []).entries()) {
              const here = `${field}.add.${kind}[${index}]`;
              await editor.add(kind, withAppearance(spec, here) as KindSpecs[typeof kind], here);
            }
          }
        }
        if (comment) {
          for (const [index, spec] of (comment.add?.replyTo ?? []).entries()) editor.addReply(spec, `${field}.comment.add.replyTo[${index}]`);
          for (const [index, spec] of (comment.add?.changeAnnotationState ?? []).entries()) editor.addReviewState(spec, `${field}.comment.add.changeAnnotationState[${index}]`);
          for (const [index, spec] of (comment.add?.markAnnotation ?? []).entries()) editor.addMarkedState(spec, `${field}.comment.add.markAnnotation[${index}]`);
          for (const [index, spec] of (comment.edit?.replyTo ?? []).entries()) editor.editReply(spec, `${field}.comment.edit.replyTo[${index}]`);
        }
        editor.finish();
      },
      context.call,
    );
    return { path: output, type: input.type };
  },
};

/** Decodes a client-supplied appearance (exactly one of image, pdf, svg; Base64 only). */
function withAppearance<T extends object>(spec: T, field: string): T {
  const source = (spec as { normalAppearance?: AppearanceSourceOptions }).normalAppearance;
  if (!source) return spec;
  const here = `${field}.normalAppearance`;
  const given = (['image', 'pdf', 'svg'] as const).filter((kind) => source[kind] !== undefined && source[kind] !== null);
  if (given.length === 0) return { ...spec, normalAppearance: undefined };
  if (given.length > 1) throw new QuireError('PARAMETER', `Invalid parameter ${here}: give one of image, pdf or svg, not ${given.join(' and ')}.`);
  const kind = given[0]!;
  const chosen = source[kind]!;
  const resolved: AppearanceSource = {
    kind,
    bytes: decodeFileData(chosen.data, `${here}.${kind}.data`),
    field: `${here}.${kind}`,
    preserveAspectRatio: chosen.preserveAspectRatio,
    ...(kind === 'pdf' ? { page: source.pdf!.page } : {}),
    ...(kind === 'svg' ? { aspectRatioAxis: source.svg!.aspectRatioAxis } : {}),
  };
  return { ...spec, normalAppearance: resolved };
}
