/**
 * A PDF/A report (pdfa analyze, or a failed conversion's errorReport: file) as a page a person can
 * read: the verdict, the counts, the problems, and each failed rule with its clause, description and
 * the objects and pages it failed on. The report is the server's JSON (docs/pdfa.md, "Reports"); it
 * is shown as text (Preact escapes it), never as markup.
 */
import type { JSX } from 'preact';
import { useT } from '../i18n/i18n';
import { TableHead } from './table-head';

interface Failure {
  object?: string;
  message?: string;
  count?: number;
  page?: number;
  pages?: number[];
}

interface Rule {
  id: string;
  clause?: string;
  description?: string;
  status: string;
  failedCount?: number;
  failures?: Failure[];
}

export interface PdfaReport {
  document?: string;
  level?: string;
  profile?: string;
  verdict: string;
  complete?: boolean;
  counts?: { passed?: number; failed?: number; notChecked?: number };
  problems?: string[];
  attribution?: string;
  rules: Rule[];
}

/** The report inside a parsed document, when it is one (a JSON document of any other shape is not). */
export function asPdfaReport(value: unknown): PdfaReport | undefined {
  const report = (value as { report?: unknown } | null)?.report as Partial<PdfaReport> | undefined;
  return report && typeof report.verdict === 'string' && Array.isArray(report.rules) ? (report as PdfaReport) : undefined;
}

const VERDICT_BADGE: Record<string, string> = { compliant: 'ok', 'non-compliant': 'warn' };

export function PdfaReportView({ report }: { report: PdfaReport }): JSX.Element {
  const t = useT();
  const failed = report.rules.filter((rule) => rule.status === 'failed');
  const pagesOf = (failure: Failure) => (failure.pages?.length ? failure.pages.join(', ') : failure.page !== undefined ? String(failure.page) : '–');
  return (
    <section class="pdfa-report" aria-labelledby="pdfa-report-title" data-testid="pdfa-report">
      <h4 id="pdfa-report-title">{t('pdfa.report', { level: report.level ?? '', profile: report.profile ?? '' })}</h4>
      <p>
        {t('pdfa.verdict')}:{' '}
        <span class={`badge ${VERDICT_BADGE[report.verdict] ?? 'info'}`} data-testid="pdfa-verdict">
          {report.verdict}
        </span>
        {report.complete === false && <span class="hint"> {t('pdfa.incomplete')}</span>}
      </p>
      <dl class="pdfa-counts">
        <dt>{t('pdfa.passed')}</dt>
        <dd data-count="passed">{report.counts?.passed ?? 0}</dd>
        <dt>{t('pdfa.failed')}</dt>
        <dd data-count="failed">{report.counts?.failed ?? 0}</dd>
        <dt>{t('pdfa.notChecked')}</dt>
        <dd data-count="notChecked">{report.counts?.notChecked ?? 0}</dd>
      </dl>
      {report.problems && report.problems.length > 0 && (
        <ul class="pdfa-problems">
          {report.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {failed.length > 0 ? (
        <table class="pdfa-rules">
          <caption>{t('pdfa.failedRules', { count: failed.length })}</caption>
          <TableHead columns={['pdfa.rule', 'pdfa.clause', 'pdfa.description', 'pdfa.where', 'pdfa.pages']} />
          <tbody>
            {failed.map((rule) => (
              <tr key={rule.id} data-rule={rule.id}>
                <td data-label={t('pdfa.rule')}>{rule.id}</td>
                <td data-label={t('pdfa.clause')}>{rule.clause ?? ''}</td>
                <td data-label={t('pdfa.description')}>{rule.description ?? ''}</td>
                <td data-label={t('pdfa.where')}>
                  <ul class="pdfa-failures">
                    {(rule.failures ?? []).map((failure, index) => (
                      // Failures have no identity of their own: their position in the report is it.
                      <li key={index}>
                        <code>{failure.object ?? ''}</code> {failure.message ?? ''}
                        {failure.count !== undefined && failure.count > 1 && ` (×${failure.count})`}
                      </li>
                    ))}
                  </ul>
                </td>
                <td data-label={t('pdfa.pages')}>{(rule.failures ?? []).map(pagesOf).join('; ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>{t('pdfa.noFailures')}</p>
      )}
      {report.attribution && <small class="hint">{report.attribution}</small>}
    </section>
  );
}
