import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, degrees } from '@cantoo/pdf-lib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { downloadToFile, pageText } from '../../helpers/converter.js';
import { info, PNG_1X1, sha256 } from '../../helpers/documents.js';
import { useTestServer } from '../../helpers/fixture.js';
import { numberedPdf } from '../../helpers/toolbox.js';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'quire-annotation-'));
const MM = 72 / 25.4;

// ---- qpdf's view of the result (an independent reader) ----

type QValue = string | number | boolean | null | QValue[] | { [key: string]: QValue };
type QDict = Record<string, QValue>;

interface Annotation {
  ref: string;
  dict: QDict;
}

class QpdfView {
  readonly objects: Record<string, { value?: QValue; stream?: { dict: QDict } }>;
  readonly pages: string[];

  constructor(file: string) {
    const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    this.objects = json.qpdf[1];
    this.pages = (json.pages as { object: string }[]).map((p) => p.object);
  }

  get(value: QValue | undefined): QValue | undefined {
    if (typeof value === 'string' && /^\d+ \d+ R$/.test(value)) {
      const object = this.objects[`obj:${value}`];
      return object?.value ?? object?.stream?.dict;
    }
    return value;
  }

  dict(value: QValue | undefined): QDict {
    return (this.get(value) ?? {}) as QDict;
  }

  annotations(page: number): Annotation[] {
    const annots = (this.get(this.dict(this.pages[page - 1])['/Annots']) ?? []) as QValue[];
    return annots.map((ref) => ({ ref: String(ref), dict: this.dict(ref) }));
  }

  bySubtype(page: number, subtype: string): Annotation[] {
    return this.annotations(page).filter((a) => a.dict['/Subtype'] === `/${subtype}`);
  }
}

/** qpdf writes text strings as "u:…". */
const text = (value: QValue | undefined) => (typeof value === 'string' ? value.replace(/^u:/, '') : value);
const rect = (value: QValue | undefined) => (value as number[]).map((v) => Math.round(v * 10) / 10);

/** Page 1 as poppler renders it at 72 dpi (1 pixel = 1 point), optionally without annotations. */
async function render(file: string, hideAnnotations = false): Promise<{ data: Buffer; width: number }> {
  const prefix = path.join(scratch, `render-${Math.random().toString(36).slice(2)}`);
  execFileSync('pdftoppm', ['-r', '72', '-f', '1', '-l', '1', '-singlefile', '-png', ...(hideAnnotations ? ['-hide-annotations'] : []), file, prefix]);
  const { data, info: meta } = await sharp(`${prefix}.png`).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: meta.width };
}

/** The colour at (x, y) points from the top-left of page 1. */
async function pixel(file: string, x: number, y: number): Promise<[number, number, number]> {
  const { data, width } = await render(file);
  const offset = (Math.round(y) * width + Math.round(x)) * 3;
  return [data[offset]!, data[offset + 1]!, data[offset + 2]!];
}

/** Non-white pixels in a box (left, top, right, bottom; points from the top-left) of page 1. */
async function ink(file: string, box: [number, number, number, number], hideAnnotations: boolean): Promise<number> {
  const { data, width } = await render(file, hideAnnotations);
  let count = 0;
  for (let y = box[1]; y < box[3]; y++) for (let x = box[0]; x < box[2]; x++) if (data[(y * width + x) * 3]! < 128) count++;
  return count;
}

/**
 * Objects of the file that nothing refers to: qpdf lists every object of the cross-reference
 * table, and a rewrite by qpdf keeps only the reachable ones (object and xref streams aside).
 */
function unreachableObjects(file: string): number {
  const count = (pdf: string) => {
    const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', pdf], { encoding: 'utf8', maxBuffer: 64 << 20 }));
    return Object.entries(json.qpdf[1] as Record<string, { stream?: { dict: QDict } }>).filter(
      ([key, object]) => key.startsWith('obj:') && !['/ObjStm', '/XRef'].includes(String(object.stream?.dict['/Type'])),
    ).length;
  };
  const rewritten = path.join(scratch, `rewritten-${Math.random().toString(36).slice(2)}.pdf`);
  execFileSync('qpdf', ['--object-streams=disable', file, rewritten]);
  return count(file) - count(rewritten);
}

const near = (actual: number[], expected: number[], tolerance = 40) => actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);

describe('toolbox annotation', () => {
  const { server, session, upload, toolboxOk: ok, runToolbox: fails } = useTestServer();

  const view = async (id: string) => {
    const file = await downloadToFile(server.rest, session.token, id);
    return { file, qpdf: new QpdfView(file) };
  };

  it('adds every documented kind with its geometry, entries and a drawn appearance', async () => {
    const doc = await upload(await numberedPdf(2));
    await ok(doc.documentId, [
      {
        annotation: {
          add: {
            square: [
              {
                page: 1,
                color: '#FF0000',
                interiorColor: '#00FF00',
                drawMode: 'fillAndStroke',
                contents: 'a square',
                creator: 'Ann',
                subject: 'Box',
                name: 'sq-1',
                opacity: 100,
                printable: true,
                locked: false,
                border: { borderWidth: 2, borderStyle: 'dashed', dashLength: 4, gapLength: 2 },
                position: { rectangle: { x: 20, y: 30, width: 40, height: 20, metrics: 'mm', coordinates: 'user' } },
              },
            ],
            circle: [{ page: 1, drawMode: 'stroke', position: { rectangle: { x: 300, y: 100, width: 100, height: 50, metrics: 'pt', coordinates: 'pdf' } } }],
            line: [{ page: 2, start: { x: 10, y: 10, metrics: 'mm' }, end: { x: 100, y: 10, metrics: 'mm' }, border: { borderWidth: 3 } }],
            markup: [
              { page: 1, markupType: 'highlight', color: '#FFFF00', position: { pathElement: [{ x: 50, y: 120, width: 100, height: 30, metrics: 'pt' }] } },
              {
                page: 1,
                markupType: 'strikeOut',
                position: {
                  quadrilateral: [
                    {
                      point: [
                        { x: 10, y: 10, metrics: 'pt' },
                        { x: 60, y: 10, metrics: 'pt' },
                        { x: 10, y: 30, metrics: 'pt' },
                        { x: 60, y: 30, metrics: 'pt' },
                      ],
                    },
                  ],
                },
              },
            ],
            freetext: [
              {
                page: 1,
                contents: 'Hello free text',
                justification: 'centered',
                font: { name: 'Times New Roman', size: 14, bold: true, color: '#0000FF' },
                position: { rectangle: { x: 100, y: 400, width: 200, height: 60, metrics: 'pt' } },
              },
            ],
            text: [{ page: 1, contents: 'a note', icon: 'star', initialOpen: false, name: 'note-1', position: { x: 500, y: 300, metrics: 'pt' } }],
            rubberstamp: [{ page: 2, icon: 'topSecret', appearanceGeneration: 'Always', position: { rectangle: { x: 100, y: 100, width: 180, height: 50, metrics: 'pt' } } }],
            redact: [{ page: 2, interiorColor: '#000000', position: { pathElement: [{ x: 50, y: 300, width: 80, height: 20, metrics: 'pt' }] } }],
          },
        },
      },
    ]);
    const { file, qpdf } = await view(doc.documentId);
    execFileSync('qpdf', ['--check', file]); // exit 2/3 (errors, warnings) throws

    const [square] = qpdf.bySubtype(1, 'Square');
    expect(square).toBeDefined();
    // user coordinates: top-left origin; A4 is 842 pt high
    expect(rect(square!.dict['/Rect'])).toEqual(rect([20 * MM, 842 - 50 * MM, 60 * MM, 842 - 30 * MM]));
    expect(square!.dict).toMatchObject({ '/C': [1, 0, 0], '/IC': [0, 1, 0], '/F': 4 });
    expect(text(square!.dict['/Contents'])).toBe('a square');
    expect(text(square!.dict['/T'])).toBe('Ann');
    expect(text(square!.dict['/Subj'])).toBe('Box');
    expect(text(square!.dict['/NM'])).toBe('sq-1');
    expect(qpdf.dict(square!.dict['/BS'])).toMatchObject({ '/W': 2, '/S': '/D', '/D': [4, 2] });
    expect(qpdf.dict(square!.dict['/AP'])['/N']).toMatch(/^\d+ 0 R$/);

    const [circle] = qpdf.bySubtype(1, 'Circle');
    // pdf coordinates: bottom-left origin, points
    expect(rect(circle!.dict['/Rect'])).toEqual([300, 100, 400, 150]);
    expect(circle!.dict['/IC']).toBeUndefined();
    expect(circle!.dict['/F']).toBe(128); // locked (default), not printable

    const [line] = qpdf.bySubtype(2, 'Line');
    expect(rect(line!.dict['/L'])).toEqual(rect([10 * MM, 842 - 10 * MM, 100 * MM, 842 - 10 * MM]));

    const [highlight] = qpdf.bySubtype(1, 'Highlight');
    expect(rect(highlight!.dict['/QuadPoints'])).toEqual([50, 722, 150, 722, 50, 692, 150, 692]);
    expect(qpdf.bySubtype(1, 'StrikeOut')).toHaveLength(1);

    const [freeText] = qpdf.bySubtype(1, 'FreeText');
    expect(text(freeText!.dict['/DA'])).toBe('/Times-Bold 14 Tf 0 0 1 rg');
    expect(freeText!.dict['/Q']).toBe(1);

    const [note] = qpdf.bySubtype(1, 'Text');
    expect(note!.dict).toMatchObject({ '/Name': '/Star', '/Open': false });
    expect(rect(note!.dict['/Rect'])).toEqual([500, 522, 520, 542]); // default icon size 20 pt
    const [popup] = qpdf.bySubtype(1, 'Popup');
    expect(popup!.dict['/Parent']).toBe(note!.ref);
    expect(note!.dict['/Popup']).toBe(popup!.ref);

    const [stamp] = qpdf.bySubtype(2, 'Stamp');
    expect(stamp!.dict['/Name']).toBe('/TopSecret');
    const [redact] = qpdf.bySubtype(2, 'Redact');
    expect(redact!.dict).toMatchObject({ '/IC': [0, 0, 0] });
    expect(qpdf.dict(redact!.dict['/RO'])['/Subtype']).toBe('/Form');

    // poppler draws our appearance streams: the green interior of the square, the dashed red border.
    expect(near(await pixel(file, 40 * MM, 40 * MM), [0, 255, 0])).toBe(true);
    expect(near(await pixel(file, 30 * MM, 30 * MM + 1), [255, 0, 0], 80)).toBe(true);
    // the highlight is yellow over white (below the square)
    expect(near(await pixel(file, 100, 146), [255, 255, 0])).toBe(true);
  });

  it('places user coordinates on a rotated page as the reader sees it', async () => {
    const document = await PDFDocument.load(await numberedPdf(1));
    document.getPage(0).setRotation(degrees(90));
    const doc = await upload(Buffer.from(await document.save()), 'rotated.pdf');
    await ok(doc.documentId, [{ annotation: { add: { square: [{ position: { rectangle: { x: 10, y: 20, width: 30, height: 40, metrics: 'pt' } } }] } } }]);
    const { qpdf } = await view(doc.documentId);
    // /Rotate 90: the displayed x axis runs up the unrotated page, the displayed y axis to its right.
    expect(rect(qpdf.bySubtype(1, 'Square')[0]!.dict['/Rect'])).toEqual([20, 10, 60, 40]);
  });

  it('uses a client image as a stamp appearance and keeps its aspect ratio', async () => {
    const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 255, g: 0, b: 255 } } })
      .png()
      .toBuffer();
    const doc = await upload(await numberedPdf(1));
    await ok(doc.documentId, [
      {
        annotation: {
          add: {
            rubberstamp: [
              {
                icon: 'unnamed',
                customIconName: 'Paid',
                normalAppearance: { image: { data: { source: 'value', value: png.toString('base64') }, preserveAspectRatio: true } },
                position: { rectangle: { x: 100, y: 100, width: 100, height: 100, metrics: 'pt' } },
              },
            ],
          },
        },
      },
    ]);
    const { file, qpdf } = await view(doc.documentId);
    const [stamp] = qpdf.bySubtype(1, 'Stamp');
    expect(stamp!.dict['/Name']).toBe('/Paid');
    const appearance = qpdf.dict(qpdf.dict(stamp!.dict['/AP'])['/N']);
    const image = qpdf.dict(qpdf.dict(qpdf.dict(appearance['/Resources'])['/XObject'])['/X0']);
    expect(image).toMatchObject({ '/Subtype': '/Image', '/Width': 40, '/Height': 20 });
    // 100×100 box, 2:1 image centred: magenta from y=125 to 175 (from the top), white above
    expect(near(await pixel(file, 150, 150), [255, 0, 255])).toBe(true);
    expect(near(await pixel(file, 150, 110), [255, 255, 255])).toBe(true);
  });

  it('edits the selected annotation, answers and reviews it, and edits the reply', async () => {
    const doc = await upload(await numberedPdf(1));
    await ok(doc.documentId, [
      {
        annotation: {
          add: {
            square: [{ name: 'target', contents: 'old', position: { rectangle: { x: 10, y: 10, width: 20, height: 20 } } }],
            circle: [{ name: 'other', position: { rectangle: { x: 100, y: 100, width: 20, height: 20 } } }],
          },
        },
      },
    ]);
    let { qpdf } = await view(doc.documentId);
    const square = qpdf.bySubtype(1, 'Square')[0]!;
    const circleBefore = qpdf.bySubtype(1, 'Circle')[0]!;
    const objectNumber = square.ref.split(' ')[0];

    await ok(doc.documentId, [
      {
        annotation: {
          // as the clients send it: every scalar with its default
          edit: { selection: { select: [{ page: 1, objectKey: { id: `${objectNumber} 0 R` } }] }, square: { page: 1, color: '#0000FF', contents: 'new', creator: '', name: '', opacity: 50 } },
          comment: {
            add: {
              replyTo: [{ page: 1, replyTo: 'target', comment: 'I agree', creator: 'Bob', name: 'reply-1' }],
              changeAnnotationState: [{ page: 1, replyTo: 'target', replyState: 'accepted', creator: 'Bob' }],
              markAnnotation: [{ page: 1, replyTo: `${objectNumber}`, markedState: true }],
            },
          },
        },
      },
    ]);
    ({ qpdf } = await view(doc.documentId));
    const edited = qpdf.bySubtype(1, 'Square')[0]!;
    expect(edited.ref).toBe(square.ref);
    expect(edited.dict).toMatchObject({ '/C': [0, 0, 1], '/CA': 0.5 });
    expect(text(edited.dict['/Contents'])).toBe('new');
    expect(text(edited.dict['/NM'])).toBe('target'); // "" keeps the name
    expect(edited.dict['/Rect']).toEqual(square.dict['/Rect']); // no position: not moved
    expect(qpdf.bySubtype(1, 'Circle')[0]!.dict['/C']).toEqual(circleBefore.dict['/C']);

    const comments = qpdf.bySubtype(1, 'Text').filter((a) => a.dict['/IRT'] === square.ref);
    expect(comments).toHaveLength(3);
    const reply = comments.find((a) => text(a.dict['/NM']) === 'reply-1')!;
    expect(text(reply.dict['/Contents'])).toBe('I agree');
    expect(text(reply.dict['/T'])).toBe('Bob');
    const review = comments.find((a) => text(a.dict['/StateModel']) === 'Review')!;
    expect(text(review.dict['/State'])).toBe('Accepted');
    expect(text(comments.find((a) => text(a.dict['/StateModel']) === 'Marked')!.dict['/State'])).toBe('Marked');

    await ok(doc.documentId, [{ annotation: { comment: { edit: { replyTo: [{ page: 1, objectKey: { id: reply.ref }, comment: 'I disagree' }] } } } }]);
    ({ qpdf } = await view(doc.documentId));
    expect(text(qpdf.annotations(1).find((a) => a.ref === reply.ref)!.dict['/Contents'])).toBe('I disagree');
  });

  it('removes by position with pop-ups and replies, out of the file too; clear keeps form widgets', async () => {
    const document = await PDFDocument.load(await numberedPdf(2));
    document.getForm().createTextField('kept').addToPage(document.getPage(1), { x: 300, y: 300, width: 100, height: 20 });
    const doc = await upload(Buffer.from(await document.save()));
    await ok(doc.documentId, [
      {
        annotation: {
          add: {
            text: [{ page: 1, contents: 'secret remark', name: 'n1', icon: 'star', position: { x: 10, y: 10, metrics: 'pt' } }],
            square: [
              { page: 1, position: { rectangle: { x: 300, y: 300, width: 50, height: 50, metrics: 'pt' } } },
              { page: 2, position: { rectangle: { x: 10, y: 10, width: 50, height: 50 } } },
            ],
          },
          comment: { add: { replyTo: [{ page: 1, replyTo: 'n1', comment: 'reply text' }] } },
        },
      },
    ]);
    let { file, qpdf } = await view(doc.documentId);
    expect(qpdf.annotations(1)).toHaveLength(4); // note, popup, square, reply

    await ok(doc.documentId, [{ annotation: { remove: { selection: { select: [{ page: 1, position: { x: 5, y: 5, width: 10, height: 10, metrics: 'pt' } }] } } } }]);
    ({ file, qpdf } = await view(doc.documentId));
    expect(qpdf.annotations(1).map((a) => a.dict['/Subtype'])).toEqual(['/Square']);
    // removed means removed: no orphaned objects (the note's appearance, its pop-up) stay in the file
    expect(unreachableObjects(file)).toBe(0);
    execFileSync('qpdf', ['--check', file]);

    await ok(doc.documentId, [{ annotation: { clear: { pages: '2', flatten: false } } }]);
    ({ qpdf } = await view(doc.documentId));
    expect(qpdf.annotations(1)).toHaveLength(1);
    expect(qpdf.annotations(2).map((a) => a.dict['/Subtype'])).toEqual(['/Widget']);
  });

  it('flattens: the appearance becomes page content (pdftotext sees the free text) and the annotation is gone', async () => {
    const doc = await upload(await numberedPdf(1));
    await ok(doc.documentId, [
      {
        annotation: {
          add: { freetext: [{ contents: 'Burnt in', font: { name: 'Helvetica', size: 16, color: '#000000' }, position: { rectangle: { x: 50, y: 200, width: 150, height: 40, metrics: 'pt' } } }] },
        },
      },
    ]);
    // the box spans x 50..200, y 200..240 from the top
    const box: [number, number, number, number] = [50, 200, 200, 240];
    let { file } = await view(doc.documentId);
    expect(await ink(file, box, false)).toBeGreaterThan(100);
    expect(await ink(file, box, true)).toBe(0); // only the annotation draws it
    await ok(doc.documentId, [{ annotation: { clear: { pages: '', flatten: true } } }]);
    let qpdf: QpdfView;
    ({ file, qpdf } = await view(doc.documentId));
    expect(qpdf.annotations(1)).toHaveLength(0);
    expect(await ink(file, box, true)).toBeGreaterThan(100); // now the page content does
    expect(pageText(file, 1)).toContain('Burnt in');
    expect(pageText(file, 1)).toContain('PAGE-1');
  });

  it('refuses what it cannot do and leaves the document unchanged', async () => {
    const doc = await upload(await numberedPdf(2));
    const before = await info(server.rest, session.token, doc.documentId);
    const cases: [unknown, number, RegExp][] = [
      [{ clear: { pages: '5' } }, -14, /toolbox\[0\]\.annotation\.clear\.pages: Page 5 is out of range: the document has 2 pages/],
      [{ add: { square: [{ page: 3, position: { rectangle: { width: 10, height: 10 } } }] } }, -14, /annotation\.add\.square\[0\]\.page: page 3 is out of range/],
      [{ add: { markup: [{ markupType: 'glow', position: { pathElement: [{ width: 1, height: 1 }] } }] } }, -14, /markupType/],
      [{ add: { line: [{ start: { x: 1, y: 1 } }] } }, -14, /annotation\.add\.line\[0\]\.end: required/],
      [{ add: { markup: [{ position: { quadrilateral: [{ point: [{ x: 1, y: 1 }] }] } }] } }, -14, /quadrilateral\[0\]\.point: four points/],
      [{ add: { square: [{ color: 'red', position: { rectangle: { width: 10, height: 10 } } }] } }, -14, /color/],
      [{ add: { freetext: [{ font: { name: 'Comic Sans MS' }, position: { rectangle: { width: 50, height: 20 } } }] } }, -104, /font\.name "Comic Sans MS"/],
      [{ add: { text: [{ icon: 'unnamed' }] } }, -14, /customIconName: required/],
      [{ add: { rubberstamp: [{ normalAppearance: { image: { data: { source: 'uri', uri: 'http://example.com/a.png' } } } }] } }, -104, /normalAppearance\.image\.data\.source "uri"/],
      [{ add: { rubberstamp: [{ normalAppearance: { image: { data: { value: Buffer.from('no image').toString('base64') } } } }] } }, -14, /normalAppearance\.image\.data: not an image/],
      [{ remove: { selection: { select: [{ page: 1, objectKey: { id: '9999' } }] } } }, -14, /remove\.selection\.select\[0\]: page 1 has no annotation with object key "9999"/],
      [{ edit: { selection: { select: [{ page: 1 }] } } }, -14, /annotation\.edit: give the new properties/],
      [{ comment: { add: { replyTo: [{ page: 1, replyTo: 'nobody' }] } } }, -14, /replyTo\[0\]\.replyTo: page 1 has no annotation named or keyed "nobody"/],
      [{}, -14, /give add, edit, remove, clear or comment/],
    ];
    for (const [annotation, code, message] of cases) {
      const outcome = await fails(doc.documentId, [{ annotation }]);
      expect(outcome.error, JSON.stringify(annotation)).toMatchObject({ errorCode: code });
      expect(outcome.error?.errorMessage, JSON.stringify(annotation)).toMatch(message);
    }
    // a failing later step undoes the earlier one
    const chain = await fails(doc.documentId, [{ annotation: { add: { square: [{ position: { rectangle: { width: 10, height: 10 } } }] } } }, { annotation: { clear: { pages: '9' } } }]);
    expect(chain.error).toMatchObject({ errorCode: -14 });
    const after = await info(server.rest, session.token, doc.documentId);
    expect(after).toMatchObject({ fileSize: before.fileSize, fileLastModified: before.fileLastModified });
    const { qpdf } = await view(doc.documentId);
    expect(qpdf.annotations(1)).toHaveLength(0);
  });

  it('needs the right password (-5008) and a readable PDF (-7)', async () => {
    const plain = path.join(scratch, 'locked-src.pdf');
    writeFileSync(plain, await numberedPdf(1));
    execFileSync('qpdf', ['--encrypt', 'u', 'o', '256', '--', plain, `${plain}.enc`]);
    const locked = await upload(readFileSync(`${plain}.enc`), 'locked.pdf');
    const square = { annotation: { add: { square: [{ position: { rectangle: { width: 10, height: 10 } } }] } } };
    expect((await fails(locked.documentId, [square], { password: { open: 'x' } })).error).toMatchObject({ errorCode: -5008 });
    await ok(locked.documentId, [square], { password: { open: 'u' } });
    const file = await downloadToFile(server.rest, session.token, locked.documentId);
    const json = JSON.parse(execFileSync('qpdf', ['--password=u', '--json=2', '--json-key=encrypt', file], { encoding: 'utf8' }));
    expect(json.encrypt.encrypted).toBe(true);

    const damaged = await upload(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('garbage '.repeat(50))]), 'damaged.pdf');
    const before = sha256(readFileSync(await downloadToFile(server.rest, session.token, damaged.documentId)));
    expect((await fails(damaged.documentId, [square])).error).toMatchObject({ errorCode: -7 });
    expect(sha256(readFileSync(await downloadToFile(server.rest, session.token, damaged.documentId)))).toBe(before);
  });

  it('accepts a 1×1 PNG note appearance drawn at its natural size', async () => {
    const doc = await upload(await numberedPdf(1));
    await ok(doc.documentId, [{ annotation: { add: { text: [{ normalAppearance: { image: { data: { value: PNG_1X1.toString('base64') } } }, position: { x: 50, y: 50, metrics: 'pt' } }] } } }]);
    const { qpdf } = await view(doc.documentId);
    const [note] = qpdf.bySubtype(1, 'Text');
    expect(rect(note!.dict['/Rect'])).toEqual([50, 791, 51, 792]);
  });
});
