// Small DOM helpers: elements are built with properties and text, never from HTML strings.

/** `tag` with `props` (properties; `aria-*` and `data-*` as attributes) and `children`. */
export function element(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name.startsWith('aria-') || name.startsWith('data-')) node.setAttribute(name, value);
    else node[name] = value;
  }
  node.append(...children.flat());
  return node;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
