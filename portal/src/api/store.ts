import { useEffect, useState } from 'preact/hooks';

/** A value that components follow: set() re-renders every component that used it. */
export class Store<T> {
  private readonly listeners = new Set<(value: T) => void>();
  constructor(private current: T) {}

  get(): T {
    return this.current;
  }

  set(value: T): void {
    this.current = value;
    for (const listener of this.listeners) listener(value);
  }

  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
