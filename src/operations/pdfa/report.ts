import type { PdfaReport } from '../../engines/pdfa-validator/validate.js';
import { buildXml, XML_DECLARATION, xmlElement, xmlText, type XmlOut } from '../../engines/xml/write.js';
import type { ReportFormat } from './pdfa.schema.js';

/**
 * The validation report of the pdfa web service (docs/pdfa.md "Reports"), as JSON (default) or XML:
 * the verdict, the counts, and per rule of the level's veraPDF profile its id, clause, description and
 * status `passed` / `failed` / `not-checked`, with the failures (object path, page where the model knows it — the
 * first object's `page` and every distinct `pages` of that message —, message, count) or why
 * it was not checked. The profiles' attribution (CC BY 4.0) goes with every report.
 */

/** What the report says about the run besides the validator's findings. */
export interface ReportContext {
  /** The document's file name (display only). */
  document: string;
  /** `analyze`, or `convert` (the report of a conversion's result). */
  operation: 'analyze' | 'convert';
  /** Fix-ups and engine notes of a conversion. */
  notes?: string[];
}

export interface ReportFile {
  bytes: Buffer;
  extension: 'json' | 'xml';
}

export function writeReport(report: PdfaReport, context: ReportContext, format: ReportFormat): ReportFile {
  const extension = reportExtension(format);
  return extension === 'xml'
    ? { bytes: Buffer.from(reportXml(report, context), 'utf8'), extension }
    : { bytes: Buffer.from(`${JSON.stringify(reportJson(report, context), null, 2)}\n`, 'utf8'), extension };
}

/**
 * The file name of a report stored as a document, with its extension: a new document's type is
 * detected from its content and the name's extension, and content alone cannot tell JSON from
 * plain text (without `.json` the JSON report was stored as `.txt`, text/plain).
 */
export function reportFileName(base: string, format: ReportFormat): string {
  return `${base}.${reportExtension(format)}`;
}

function reportExtension(format: ReportFormat): ReportFile['extension'] {
  return format === 'xml' ? 'xml' : 'json';
}

export function reportJson(report: PdfaReport, context: ReportContext): Record<string, unknown> {
  return {
    report: {
      document: context.document,
      operation: context.operation,
      level: report.level,
      profile: report.flavour,
      verdict: report.verdict,
      complete: report.complete,
      counts: report.counts,
      problems: report.problems,
      ...(context.notes && context.notes.length > 0 ? { notes: context.notes } : {}),
      attribution: report.attribution,
      rules: report.rules.map((rule) => ({
        id: rule.id,
        specification: rule.specification,
        clause: rule.clause,
        testNumber: rule.testNumber,
        object: rule.object,
        description: rule.description,
        status: rule.status,
        ...(rule.status === 'failed' ? { failedCount: rule.failedCount, failures: rule.failures } : {}),
        ...(rule.notCheckedReason !== undefined ? { notCheckedReason: rule.notCheckedReason } : {}),
      })),
    },
  };
}

export function reportXml(report: PdfaReport, context: ReportContext): string {
  const text = (name: string, value: string): XmlOut => xmlElement(name, {}, [xmlText(value)]);
  const rules = report.rules.map((rule) =>
    xmlElement(
      'rule',
      {
        id: rule.id,
        specification: rule.specification,
        clause: rule.clause,
        testNumber: String(rule.testNumber),
        object: rule.object,
        status: rule.status,
        ...(rule.status === 'failed' ? { failedCount: String(rule.failedCount) } : {}),
      },
      [
        text('description', rule.description),
        ...(rule.notCheckedReason !== undefined ? [text('notCheckedReason', rule.notCheckedReason)] : []),
        ...(rule.status === 'failed'
          ? rule.failures.map((f) =>
              xmlElement(
                'failure',
                { object: f.object, ...(f.page === undefined ? {} : { page: String(f.page) }), ...(f.pages === undefined ? {} : { pages: f.pages.join(' ') }), count: String(f.count) },
                [xmlText(f.message)],
              ),
            )
          : []),
      ],
    ),
  );
  const root = xmlElement(
    'pdfaReport',
    { document: context.document, operation: context.operation, level: report.level, profile: report.flavour, verdict: report.verdict, complete: String(report.complete) },
    [
      xmlElement('counts', { passed: String(report.counts.passed), failed: String(report.counts.failed), notChecked: String(report.counts.notChecked) }),
      xmlElement(
        'problems',
        {},
        report.problems.map((p) => text('problem', p)),
      ),
      ...(context.notes && context.notes.length > 0
        ? [
            xmlElement(
              'notes',
              {},
              context.notes.map((n) => text('note', n)),
            ),
          ]
        : []),
      text('attribution', report.attribution),
      xmlElement('rules', {}, rules),
    ],
  );
  return `${XML_DECLARATION}${buildXml([root])}\n`;
}

/** Failed rules named in an error message at most (the full list is in the report). */
const MAX_RULES_IN_MESSAGE = 10;

/** One line per failed rule, for error messages: `6.6.4-2 (ISO 19005-2 6.6.4): <first failure>`. */
export function failedRulesText(report: PdfaReport): string {
  const failed = report.rules.filter((r) => r.status === 'failed');
  const lines = failed.slice(0, MAX_RULES_IN_MESSAGE).map((r) => `${r.id}: ${r.failures[0]?.message ?? r.description}${r.failures[0] ? ` (${r.failures[0].object})` : ''}`);
  if (failed.length > MAX_RULES_IN_MESSAGE) lines.push(`… and ${failed.length - MAX_RULES_IN_MESSAGE} more failed rules`);
  return lines.join('; ');
}

/** The verdict in one sentence, with the counts (warnings, messages). */
export function verdictText(report: PdfaReport): string {
  const { passed, failed, notChecked } = report.counts;
  const what = report.verdict === 'compliant' ? 'compliant' : report.verdict === 'non-compliant' ? 'non-compliant' : 'inconclusive (not every rule could be checked)';
  return `PDF/A-${report.level} validation: ${what}; ${passed} rules passed, ${failed} failed, ${notChecked} not checked (${report.attribution}).`;
}
