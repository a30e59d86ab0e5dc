import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Apache PDFBox preflight (Debian libpdfbox2-java; needs libactivation-java and libjaxb-api-java):
 * an independent PDF/A-1b validator, the one the tests trust for part 1 besides our own.
 */
const JARS = ['preflight', 'pdfbox2', 'fontbox2', 'xmpbox', 'commons-logging', 'jaxb-api', 'javax.activation'].map((name) => `/usr/share/java/${name}.jar`);

export const preflightAvailable = JARS.every((jar) => existsSync(jar));

export interface PreflightResult {
  valid: boolean;
  output: string;
}

export function preflight1b(file: string): PreflightResult {
  let output: string;
  try {
    output = execFileSync('java', ['-cp', JARS.join(':'), 'org.apache.pdfbox.preflight.Validator_A1b', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? '') + String((error as { stderr?: string }).stderr ?? '');
  }
  return { valid: /is a valid PDF\/A-1b file/.test(output), output };
}
