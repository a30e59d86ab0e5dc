import { watch, type FSWatcher } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildXml, xmlElement, xmlText } from '../xml/write.js';

/**
 * The `fonts` folder of the data dir: fonts dropped there are used by LibreOffice and Chromium
 * without a restart. A fontconfig file includes the system configuration plus the folder; the
 * engines get it through FONTCONFIG_FILE. Engines read the font list when they start, so a change
 * in the folder recycles their workers (each once it is idle).
 */
export interface FontFolder {
  /** Environment additions for engine processes. */
  env: Record<string, string>;
  folder: string;
  close(): void;
}

export async function openFontFolder(dataDir: string, onChange: () => void, debounceMs = 1000): Promise<FontFolder> {
  const folder = path.join(dataDir, 'fonts');
  const configDir = path.join(dataDir, 'engines');
  await mkdir(folder, { recursive: true });
  await mkdir(path.join(configDir, 'fontconfig-cache'), { recursive: true });
  const configFile = path.join(configDir, 'fonts.conf');
  await writeFile(
    configFile,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<!-- Written by Quire at start: the system fonts plus the data dir's fonts folder. -->
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  ${buildXml([xmlElement('dir', {}, [xmlText(folder)])])}
  ${buildXml([xmlElement('cachedir', {}, [xmlText(path.join(configDir, 'fontconfig-cache'))])])}
</fontconfig>
`,
  );
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(folder, { recursive: true }, () => {
      clearTimeout(timer);
      // Copying a font family fires many events: act once the folder is quiet.
      timer = setTimeout(onChange, debounceMs);
      timer.unref();
    });
    watcher.unref();
  } catch {
    watcher = undefined; // no inotify: fonts are picked up at the next restart
  }
  return {
    env: { FONTCONFIG_FILE: configFile },
    folder,
    close: () => {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
