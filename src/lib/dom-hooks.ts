/**
 * The markup hooks of a browser enhancement: each part of a component is found by a
 * `data-<component>-<part>` attribute (kebab-case of the part's name), checked to be the
 * element type the script drives. A missing or mistyped part throws, naming the attribute, so
 * a markup change without the script fails loudly in the browser tests, not quietly for people.
 */

/** Element types by part name, e.g. `{ form: HTMLFormElement, submit: HTMLButtonElement }`. */
type Shape = Record<string, { new (): HTMLElement; prototype: HTMLElement }>;

export type Hooks<S extends Shape> = { [K in keyof S]: S[K]['prototype'] };

export function findHooks<S extends Shape>(root: HTMLElement, component: string, shape: S): Hooks<S> {
  const found: Record<string, HTMLElement> = {};
  for (const [part, type] of Object.entries(shape)) {
    const attribute = `data-${component}-${part.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    const element = root.querySelector(`[${attribute}]`);
    if (!(element instanceof type)) throw new Error(`${component}: missing [${attribute}]`);
    found[part] = element;
  }
  return found as Hooks<S>;
}

/** Run `mount` on each element matching `selector`: the whole of a component's page script. */
export function mountAll(selector: string, mount: (root: HTMLElement) => unknown): void {
  for (const root of document.querySelectorAll<HTMLElement>(selector)) mount(root);
}
