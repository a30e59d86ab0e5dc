import type { JSX } from 'preact';

/** A failure's message, announced to screen readers as it appears (role alert); nothing without one. */
export function ErrorText({ message }: { message?: string | undefined }): JSX.Element | null {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
