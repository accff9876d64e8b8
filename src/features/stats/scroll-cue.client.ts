/**
 * A cue that a table scrolls sideways: the frame around a horizontally scrolling box gets
 * `data-more` naming the sides where columns are out of view (`start`, `end`, both, or empty),
 * kept current as the reader scrolls, the window resizes or the rows are rebuilt; the page's CSS
 * draws a fade on those sides and a one-line hint. (A CSS-only cue, scroll shadows, hides behind
 * the striped rows' backgrounds; scroll-state container queries are not in every browser yet.)
 */
export function watchSideways(box: HTMLElement, frame: HTMLElement): void {
  const update = () => {
    const hidden = box.scrollWidth - box.clientWidth;
    const sides: string[] = [];
    // A pixel of slack: sub-pixel widths round either way.
    if (hidden > 1 && box.scrollLeft > 1) sides.push('start');
    if (hidden > 1 && box.scrollLeft < hidden - 1) sides.push('end');
    const more = sides.join(' ');
    if (frame.dataset['more'] !== more) frame.dataset['more'] = more;
  };
  box.addEventListener('scroll', update, { passive: true });
  const resized = new ResizeObserver(update);
  resized.observe(box);
  // New rows can widen the table without resizing the box.
  for (const child of box.children) resized.observe(child);
  update();
}
