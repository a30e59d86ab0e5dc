import { concat, type Matrix, type PageFrame, placementMatrix } from '../pdf-edit/content/geometry.js';
import { toPoints } from '../pdf-edit/content/units.js';
import type { CodeShape } from './encode.js';
import type { CodeStamp } from './stamp.js';

/** A rectangle in points, measured from the top-left corner of its area (x right, y down). */
export interface TopLeftBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The matrix that draws a code (its own space: `shape.width` × `shape.height`) into `box` of an area
 * `areaHeight` points tall (y up, origin bottom-left), turned clockwise by `angle` degrees about the
 * box's centre.
 *
 * The box is the code's footprint as seen: at 90° or 270° the code's length runs along the box's
 * height (webPDF's example puts a 90°-turned EAN-8 in a box 10 mm wide and 40 mm tall). At other
 * angles the turned code is scaled to fit inside the box. Linear codes fill their footprint (bars as
 * tall as it allows); matrix codes keep square modules and are centred in it.
 */
export function codeMatrix(shape: CodeShape, box: TopLeftBox, areaWidth: number, areaHeight: number, angle: number): Matrix {
  const turn = ((angle % 360) + 360) % 360;
  const quarter = turn % 90 === 0;
  const sideways = turn === 90 || turn === 270;
  // The unturned size available to the code.
  let width = sideways ? box.height : box.width;
  let height = sideways ? box.width : box.height;
  if (!quarter) {
    const radians = (turn * Math.PI) / 180;
    const cos = Math.abs(Math.cos(radians));
    const sin = Math.abs(Math.sin(radians));
    const aspect = shape.height / shape.width;
    // The largest code of its natural aspect whose turned bounding box fits in the box.
    const scale = Math.min(box.width / (cos + aspect * sin), box.height / (sin + aspect * cos));
    width = scale;
    height = scale * aspect;
  }
  if (shape.matrix) {
    const scale = Math.min(width / shape.width, height / shape.height);
    width = shape.width * scale;
    height = shape.height * scale;
  }
  const radians = (turn * Math.PI) / 180;
  const boundsW = Math.abs(width * Math.cos(radians)) + Math.abs(height * Math.sin(radians));
  const boundsH = Math.abs(width * Math.sin(radians)) + Math.abs(height * Math.cos(radians));
  return placementMatrix({
    naturalWidth: shape.width,
    naturalHeight: shape.height,
    width,
    height,
    angle: turn,
    anchor: 'custom',
    // Centred in the box.
    x: box.x + (box.width - boundsW) / 2,
    y: box.y + (box.height - boundsH) / 2,
    areaWidth,
    areaHeight,
  });
}

/** The matrix from the code's space to the default user space of a page of `frame`. */
export function stampMatrix(frame: PageFrame, stamp: CodeStamp): Matrix {
  const { position } = stamp;
  const box = {
    x: toPoints(position.x, position.metrics),
    y: toPoints(position.y, position.metrics),
    width: toPoints(position.width, position.metrics),
    height: toPoints(position.height, position.metrics),
  };
  if (position.coordinates === 'pdf') {
    // The unrotated visible box, y up: turned into the top-left form the placement takes.
    const [llx, lly, urx, ury] = frame.visible;
    const height = ury - lly;
    const placed = codeMatrix(stamp.shape, { ...box, y: height - box.y - box.height }, urx - llx, height, stamp.rotation);
    return concat(placed, [1, 0, 0, 1, llx, lly]);
  }
  return concat(codeMatrix(stamp.shape, box, frame.width, frame.height, stamp.rotation), frame.toUser);
}
