import { useEffect, useState } from 'preact/hooks';

/** Loads a value (again every `everyMs`, when given); the error's message when it fails. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = [], everyMs?: number): { value?: T; error?: string; reload: () => void } {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (loaded) => {
        if (!live) return;
        setValue(loaded);
        setError(undefined);
      },
      (failure: Error) => live && setError(failure.message),
    );
    const timer = everyMs ? setTimeout(() => setRound((current) => current + 1), everyMs) : undefined;
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, round]);
  return { value, error, reload: () => setRound((current) => current + 1) };
}
