/**
 * The API's validation errors shown next to the controls they name. A control carries the settings path
 * it edits in `data-path` (`settings.rules[0].pin[1].position`, as the engine's messages name it); the
 * server's problem details key each message by that path in its problem form (deeper segments in
 * PascalCase: `settings.Rules[0].Pin[1].Position`), so paths are compared without case. A message for a
 * path deeper than any control (`settings.stopWords[3]`) goes to the nearest control above it; one no
 * control names goes to the form's own message line.
 */
import { ApiError } from './api.js';

let nextId = 0;

/** The path one segment up (`a.b[2].c` → `a.b[2]` → `a.b` → `a`), or undefined at the root. */
function parentPath(path: string): string | undefined {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut > 0 ? path.slice(0, cut) : undefined;
}

/**
 * Removes every error shown in `form` and the invalid marks of its controls; the form's message line
 * too, unless `keepNotice` and it says something other than an error (a save that succeeded).
 */
export function clearFieldErrors(form: HTMLElement, options: { keepNotice?: boolean } = {}): void {
  for (const el of form.querySelectorAll('.field-error')) el.remove();
  for (const el of form.querySelectorAll('[aria-invalid="true"]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
  const general = form.querySelector<HTMLElement>('.form-message');
  if (general && !(options.keepNotice && !general.classList.contains('error'))) general.textContent = '';
}

/** Writes `message` beside `control`, marked invalid and described by it (what a screen reader reads). */
function showAt(control: HTMLElement, message: string): void {
  const note = document.createElement('p');
  note.className = 'field-error';
  note.id = `field-error-${++nextId}`;
  note.textContent = message;
  control.setAttribute('aria-invalid', 'true');
  control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), note.id].filter(Boolean).join(' '));
  control.insertAdjacentElement('afterend', note);
}

/**
 * Shows an error of the API in `form`: each message of its problem details beside the control of its
 * path; any other error (or a message no control names) in the form's `.form-message` line.
 */
export function showFieldErrors(form: HTMLElement, err: unknown): void {
  clearFieldErrors(form);
  const controls = new Map<string, HTMLElement>();
  for (const el of form.querySelectorAll<HTMLElement>('[data-path]')) controls.set(el.dataset.path!.toLowerCase(), el);
  const unplaced: string[] = [];
  const errors = err instanceof ApiError && err.errors ? Object.entries(err.errors) : [];
  for (const [key, messages] of errors) {
    let path: string | undefined = key.toLowerCase();
    while (path !== undefined && !controls.has(path)) path = parentPath(path);
    if (path === undefined) unplaced.push(...messages);
    else showAt(controls.get(path)!, messages.join(' '));
  }
  if (errors.length === 0) unplaced.push(err instanceof Error ? err.message : String(err));
  const general = form.querySelector<HTMLElement>('.form-message');
  if (general && unplaced.length > 0) {
    general.textContent = unplaced.join(' ');
    general.classList.add('error');
  }
}

/** Says in the form's `.form-message` line that the change was saved. */
export function showSaved(form: HTMLElement, message: string): void {
  clearFieldErrors(form);
  const general = form.querySelector<HTMLElement>('.form-message');
  if (general) {
    general.textContent = message;
    general.classList.remove('error');
  }
}
