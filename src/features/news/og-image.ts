/**
 * The link-preview picture of an article (`og:image`, Open Graph protocol): a 1200x630 PNG, the
 * size Facebook, LinkedIn and X's `summary_large_image` card crop least, rendered once per article
 * at build time by the prerendered endpoint src/pages/news/[id]/og.png.ts.
 *
 * satori lays out a small element tree (plain objects, no JSX runtime) into an SVG whose text is
 * already turned into paths, using Inter from @fontsource/inter; satori reads TTF, OTF and WOFF
 * but not WOFF2, hence the .woff files. @resvg/resvg-wasm then rasterises the SVG: WebAssembly,
 * so no native binary has to match the build machine.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import satori from 'satori';
import { OG_IMAGE_HEIGHT, OG_IMAGE_WIDTH } from './article-meta.ts';


export interface OgImageText {
  /** The article's heading: the largest text. */
  heading: string;
  /** Under the heading, smaller; optional. */
  subheading?: string | null | undefined;
  /** Top line, e.g. the site name. */
  siteName: string;
  /** Bottom line, e.g. the publication day. */
  footer: string;
}

/** A satori node: what React.createElement would return, written as a plain object. */
interface Node {
  type: string;
  props: { style?: Record<string, string | number>; children?: string | Node | Array<string | Node> };
}

const el = (type: string, style: Record<string, string | number>, children: NonNullable<Node['props']['children']>): Node => ({ type, props: { style, children } });

/** Cut `text` at a word boundary so a long heading keeps its room for the footer. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The element tree of the picture; the colours are those of src/layouts/base.css (light theme). */
export function ogImageTree(text: OgImageText): Node {
  const children: Node[] = [
    el('div', { display: 'flex', fontSize: 30, fontWeight: 600, color: '#1f7a52', letterSpacing: 1 }, text.siteName),
    el('div', { display: 'flex', width: '100%', fontSize: text.heading.length > 70 ? 58 : 68, fontWeight: 700, lineHeight: 1.15, marginTop: 40 }, clip(text.heading, 120)),
  ];
  if (text.subheading) children.push(el('div', { display: 'flex', width: '100%', fontSize: 32, lineHeight: 1.35, marginTop: 28, color: '#4a5a6a' }, clip(text.subheading, 160)));
  children.push(el('div', { display: 'flex', marginTop: 'auto', fontSize: 28, color: '#4a5a6a' }, text.footer));
  return el(
    'div',
    {
      width: OG_IMAGE_WIDTH,
      height: OG_IMAGE_HEIGHT,
      boxSizing: 'border-box',
      display: 'flex',
      flexDirection: 'column',
      padding: '64px 80px',
      backgroundColor: '#ffffff',
      borderTop: '16px solid #1f7a52',
      color: '#17212b',
      fontFamily: 'Inter',
    },
    children,
  );
}

interface Renderer {
  fonts: Array<{ name: string; data: Buffer; weight: 400 | 600 | 700; style: 'normal' }>;
}

let ready: Promise<Renderer> | undefined;

/** Load the fonts and the resvg WebAssembly module once per process (on first use, not at import). */
function renderer(): Promise<Renderer> {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    const font = (weight: 400 | 600 | 700) => readFile(require.resolve(`@fontsource/inter/files/inter-latin-${weight}-normal.woff`));
    const [wasm, regular, semibold, bold] = await Promise.all([readFile(require.resolve('@resvg/resvg-wasm/index_bg.wasm')), font(400), font(600), font(700)]);
    await initWasm(wasm);
    return {
      fonts: [
        { name: 'Inter', data: regular, weight: 400, style: 'normal' },
        { name: 'Inter', data: semibold, weight: 600, style: 'normal' },
        { name: 'Inter', data: bold, weight: 700, style: 'normal' },
      ],
    };
  })();
  ready.catch(() => (ready = undefined));
  return ready;
}

/** The PNG bytes of an article's preview picture. */
export async function renderOgImage(text: OgImageText): Promise<Uint8Array<ArrayBuffer>> {
  const { fonts } = await renderer();
  const svg = await satori(ogImageTree(text) as unknown as Parameters<typeof satori>[0], { width: OG_IMAGE_WIDTH, height: OG_IMAGE_HEIGHT, fonts });
  const resvg = new Resvg(svg, { fitTo: { mode: 'original' }, font: { loadSystemFonts: false } });
  try {
    const image = resvg.render();
    try {
      // A copy on its own ArrayBuffer, outside the WebAssembly memory freed below.
      return new Uint8Array(image.asPng());
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}
