import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../core/errors.js';
import type { HtmlRenderer } from '../../engines/contracts.js';
import { fillHtmlTemplate, parseTemplateData } from '../../engines/chromium/html-template.js';
import { readHtml } from '../../engines/chromium/html-input.js';
import type { HtmlJob, PageSetup } from '../../engines/chromium/types.js';
import { detectFormat } from '../../engines/format/detect-format.js';
import type { Ghostscript } from '../../engines/ghostscript/ghostscript.js';
import { imageToPdf } from '../../engines/image/image-to-pdf.js';
import type { MailMessage } from '../../engines/mail/index.js';
import type { AddressPolicyOptions } from '../../engines/net/address-policy.js';
import type { PdfRewriter } from '../../engines/pdf/rewriter.js';
import { InProcessWorker, type Task } from '../../engines/pool/in-process-worker.js';
import { WorkerPool } from '../../engines/pool/worker-pool.js';
import { decodeText, textToHtml } from '../../engines/text/index.js';
import type { RenderContext, Renderer } from './converter-service.js';
import type { InputKind } from './input-kind.js';
import { defaultsOf } from '../option-schema.js';
import type { AttachmentMode, PageGeometry } from './options.js';
import { ConverterHtml, ConverterMail } from './options.schema.js';

/** What absent `html` and `mail` members stand for: their schemas' defaults. */
const NO_HTML = defaultsOf(ConverterHtml);
const NO_MAIL = defaultsOf(ConverterMail);

export interface RendererEngines {
  ghostscript: Ghostscript;
  rewriter: PdfRewriter;
  /** Absent: HTML, text and mail conversions answer ENGINE_UNAVAILABLE. */
  chromium?: HtmlRenderer;
  /** Bounds the in-process image conversions like a process pool (queue, 429, time limit). */
  images: WorkerPool<Task<unknown>, unknown>;
  /** Where remote resources of HTML and mail may come from. */
  network: AddressPolicyOptions;
  /** Time limit of one-shot engines (Ghostscript), in milliseconds; never more than what is left of the call's. */
  timeoutMs: number;
  /** Largest text or mail file rendered, in bytes. */
  maxTextBytes: number;
}

const MM_PER_PT = 25.4 / 72;
const MAX_MAIL_ATTACHMENTS = 200;

/** A pool for in-process image work: one slot per core, like the process pools. */
export function createImagePool(size: number, queueLimit: number, timeoutMs: number): WorkerPool<Task<unknown>, unknown> {
  return new WorkerPool<Task<unknown>, unknown>({
    name: 'images',
    size,
    queueLimit,
    jobTimeoutMs: timeoutMs,
    queueTimeoutMs: 60_000,
    maxJobsPerWorker: 0,
    maxMemoryBytes: 0,
    healthIntervalMs: 0,
    create: async () => new InProcessWorker<unknown>(),
  });
}

/** The converters of the kinds LibreOffice does not handle, by input kind. */
export function createRenderers(engines: RendererEngines): Partial<Record<InputKind, Renderer>> {
  const chromium = (context: RenderContext): HtmlRenderer => {
    if (!engines.chromium) {
      throw new QuireError('ENGINE_UNAVAILABLE', `Converting "${context.type.key}" documents needs the Chromium engine, which is disabled or not running on this server.`);
    }
    return engines.chromium;
  };

  const printHtml = async (context: RenderContext, inputPath: string, job: Partial<HtmlJob> & Pick<HtmlJob, 'javascript' | 'network'>) => {
    const { settings } = context;
    await chromium(context).convert(
      {
        inputPath,
        outputPath: context.output,
        page: pageSetup(settings.layoutPage),
        ...(settings.headerHtml ? { headerHtml: settings.headerHtml } : {}),
        ...(settings.footerHtml ? { footerHtml: settings.footerHtml } : {}),
        preferCSSPageSize: false,
        printBackground: true,
        ...job,
      },
      { key: context.key },
    );
  };

  return {
    html: async (context) => {
      const html = context.settings.options.html ?? NO_HTML;
      const baseURL = html.baseURL.trim() || undefined;
      // useAsTemplate: the document is a FreeMarker-style template, filled from templateData first.
      const input = html.useAsTemplate ? await fillTemplate(context, html.templateData?.value) : context.input;
      await printHtml(context, input, {
        preferCSSPageSize: html.preferCSSPageSize,
        printBackground: html.useBackground,
        // Uploaded HTML keeps its scripts (pages often build themselves); the network stays closed unless allowed.
        javascript: true,
        network: { allowRemote: Boolean(html.downloadImages || baseURL), ...(baseURL ? { baseURL } : {}), policy: engines.network },
      });
    },

    text: async (context) => {
      const { text } = await decodeText(context.input, { maxBytes: engines.maxTextBytes });
      const style = context.settings.options.text?.textHighlight ?? {};
      const file = path.join(context.workDir, `text-${context.depth}.html`);
      await writeFile(file, textToHtml(text, { ...style, title: '' }));
      await printHtml(context, file, { javascript: false, network: { allowRemote: false, policy: engines.network } });
    },

    mail: async (context) => {
      // Loaded with the first e-mail: mailparser, msgreader and their decoders cost ~10 MB of idle memory.
      const { mailToHtml, readMail } = await import('../../engines/mail/index.js');
      const mail = context.settings.options.mail ?? NO_MAIL;
      const message = await readMail(context.input, context.type.key === 'msg' ? 'msg' : 'eml', {
        maxBytes: engines.maxTextBytes,
        maxAttachments: MAX_MAIL_ATTACHMENTS,
      });
      const mode: AttachmentMode = mail.attachmentMode;
      const file = path.join(context.workDir, `mail-${context.depth}.html`);
      await writeFile(file, mailToHtml(message, { resizeImages: mail.resizeImages, resizeTables: mail.resizeTables }));
      const body = path.join(context.workDir, `mail-${context.depth}.pdf`);
      await printHtml({ ...context, output: body }, file, {
        printBackground: mail.useBackground,
        javascript: false,
        network: { allowRemote: mail.downloadImages, policy: engines.network },
      });
      await addAttachments(context, message, mode, body, engines.rewriter);
    },

    image: async (context) => {
      const { settings } = context;
      const page = settings.page;
      await engines.images.run(
        () =>
          imageToPdf(context.input, context.output, {
            ...(page ? { page: pointsGeometry(page) } : {}),
            maintainAspectRatio: settings.maintainAspectRatio,
            ...(settings.maxDpi !== undefined ? { maxDpi: settings.maxDpi } : {}),
            jpegQuality: settings.jpegQuality,
          }),
        { key: context.key },
      );
      return { resolutionApplied: true };
    },

    postscript: async ({ input, output, settings, deadline }) => {
      // Images are reduced in the same Ghostscript pass: a second one would rewrite every glyph again.
      const downsample = settings.maxDpi === undefined ? undefined : { dpi: settings.maxDpi, jpegQuality: settings.jpegQuality };
      await engines.ghostscript.postscriptToPdf(input, output, Math.min(engines.timeoutMs, deadline.remainingMs()), downsample);
      return { resolutionApplied: downsample !== undefined };
    },
  };
}

/**
 * The attachments of a mail, as `attachmentMode` says (webPDF's modes):
 * - `embed`: the original files are attached to the PDF;
 * - `remove`: they are left out;
 * - `convert`: each is converted to PDF and the PDFs are attached instead of the originals;
 * - `convertEmbed`: the converted PDFs and the originals are attached;
 * - `convertMerge`: the converted pages follow the message;
 * - `convertMergeEmbed`: the converted pages follow the message and the originals are attached.
 * An attachment that cannot be converted (or is deeper than `maxRecursion`) is attached as it is.
 */
async function addAttachments(context: RenderContext, message: MailMessage, mode: AttachmentMode, body: string, rewriter: PdfRewriter): Promise<void> {
  const files = message.attachments.filter((a) => !a.inline);
  const attach: { path: string; name: string; mimeType: string }[] = [];
  const merge: string[] = [];
  const convert = mode !== 'embed' && mode !== 'remove' && context.depth <= context.settings.options.maxRecursion;
  for (const [index, attachment] of files.entries()) {
    if (mode === 'remove') break;
    // Only our own names become paths; the sender's file name is display data.
    const original = path.join(context.workDir, `attachment-${context.depth}-${index}`);
    await writeFile(original, attachment.content);
    const keepOriginal = { path: original, name: attachment.fileName || `attachment-${index + 1}`, mimeType: attachment.contentType };
    if (!convert) {
      attach.push(keepOriginal);
      continue;
    }
    const converted = `${original}.pdf`;
    try {
      const type = await detectFormat(original, attachment.fileName);
      await context.convertNested(original, type, converted);
    } catch (error) {
      // The call's time is up (or its client gone): that is no reason to attach the original instead.
      if (context.deadline.signal.aborted) throw error;
      attach.push(keepOriginal);
      continue;
    }
    if (mode === 'convertMerge' || mode === 'convertMergeEmbed') merge.push(converted);
    else attach.push({ path: converted, name: `${keepOriginal.name}.pdf`, mimeType: 'application/pdf' });
    if (mode === 'convertEmbed' || mode === 'convertMergeEmbed') attach.push(keepOriginal);
  }
  let current = body;
  if (merge.length > 0) {
    const merged = path.join(context.workDir, `mail-${context.depth}-merged.pdf`);
    await rewriter.merge([current, ...merge], merged, { deadline: context.deadline.at });
    current = merged;
  }
  if (attach.length > 0) {
    const withFiles = path.join(context.workDir, `mail-${context.depth}-attached.pdf`);
    await rewriter.attach(current, withFiles, attach, { deadline: context.deadline.at });
    current = withFiles;
  }
  await rename(current, context.output);
}

/** The filled template in the job's scratch directory (UTF-8 with a BOM, which wins over a `<meta charset>`). */
async function fillTemplate(context: RenderContext, data: string | undefined): Promise<string> {
  const filled = fillHtmlTemplate(await readHtml(context.input), parseTemplateData(data));
  const file = path.join(context.workDir, `template-${context.depth}.html`);
  await writeFile(file, `\uFEFF${filled}`);
  return file;
}

function pageSetup(page: PageGeometry): PageSetup {
  return { width: page.width, height: page.height, marginTop: page.top, marginRight: page.right, marginBottom: page.bottom, marginLeft: page.left };
}

function pointsGeometry(page: PageGeometry): { width: number; height: number; marginTop: number; marginRight: number; marginBottom: number; marginLeft: number } {
  const pt = (mm: number) => mm / MM_PER_PT;
  return {
    width: pt(page.width),
    height: pt(page.height),
    marginTop: pt(page.top),
    marginRight: pt(page.right),
    marginBottom: pt(page.bottom),
    marginLeft: pt(page.left),
  };
}
