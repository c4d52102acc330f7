/**
 * What a screenshot shows in a region: decoded with pngjs (Playwright's screenshots are PNG), so
 * a test can tell a painted area from a blank one.
 */
import { PNG } from 'pngjs';

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Ink {
  /** Distinct RGBA colours in the region. */
  colours: number;
  /** Pixels that are not pure white. */
  nonWhite: number;
}

/** The colours of `region` (CSS pixels at a device scale factor of 1) of a PNG screenshot. */
export function inkIn(png: Buffer, region: Region): Ink {
  const image = PNG.sync.read(png);
  const x0 = Math.max(0, Math.ceil(region.x));
  const y0 = Math.max(0, Math.ceil(region.y));
  const x1 = Math.min(image.width, Math.floor(region.x + region.width));
  const y1 = Math.min(image.height, Math.floor(region.y + region.height));
  const colours = new Set<number>();
  let nonWhite = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const rgba = image.data.readUInt32BE((y * image.width + x) * 4);
      colours.add(rgba);
      if (rgba !== 0xffffffff) nonWhite++;
    }
  }
  return { colours: colours.size, nonWhite };
}
