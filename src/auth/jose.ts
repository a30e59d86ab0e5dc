/**
 * jose, loaded with the first token that is issued or verified rather than at server start: an idle
 * server does not need its ~50 modules. One module instance for the local and the external provider,
 * so `loadedJose()` sees it whichever loaded it.
 */
export type Jose = typeof import('jose');

let jose: Jose | undefined;

export async function loadJose(): Promise<Jose> {
  jose ??= await import('jose');
  return jose;
}

/** jose if something has loaded it; an error can only be one of jose's once jose has run. */
export function loadedJose(): Jose | undefined {
  return jose;
}
