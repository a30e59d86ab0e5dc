import type { ComponentType, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useT } from '../i18n/i18n';

/** A component whose code is fetched when it is first shown (a separate chunk, not in the first load). */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): (props: P) => JSX.Element {
  let loaded: ComponentType<P> | undefined;
  return function Lazy(props: P): JSX.Element {
    const t = useT();
    const [Component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (Component) return;
      load().then(
        (component) => {
          loaded = component;
          setComponent(() => component);
        },
        () => setFailed(true),
      );
    }, [Component]);
    if (failed) return <p role="alert">{t('common.loadFailed')}</p>;
    return Component ? <Component {...props} /> : <p class="loading">{t('common.loading')}</p>;
  };
}
