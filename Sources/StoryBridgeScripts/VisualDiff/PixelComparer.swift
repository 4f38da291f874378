import Foundation
import StoryBridge

/// Compares two PNGs pixel by pixel in a headless Chromium tab: the browser decodes both, draws
/// them on canvases and reads them back with `getImageData`, so no image codec is written here.
/// The same tab draws the highlight: the "after" picture greyed and faded, with the pixels that
/// differ in red and a frame around them.
package struct PixelComparer: Sendable {
    /// How two pictures compare.
    package struct Comparison: Sendable, Hashable {
        /// Pixels whose colour differs by more than the channel tolerance in any channel (red, green,
        /// blue or alpha). A pixel only one picture has (sizes differ) counts as differing.
        package var differingPixels: Int
        var totalPixels: Int
        /// Whether both pictures have the same size.
        var sameSize: Bool
        /// The smallest rectangle holding every differing pixel, as x, y, width, height.
        package var changedRegion: [Int]?
        /// A PNG of the "after" picture with the differing pixels marked; `nil` when none differ.
        var highlightPNG: Data?

        /// The fraction of the pixels that differ, 0 to 1.
        var differingFraction: Double { totalPixels == 0 ? 0 : Double(differingPixels) / Double(totalPixels) }
    }

    /// A picture the browser could not read, or an answer it did not give.
    struct ComparisonError: Error, CustomStringConvertible {
        package let description: String
    }

    /// A difference in one colour channel up to this much (0 to 255) does not count.
    package let channelTolerance: Int
    private let page: BrowserPage

    private init(page: BrowserPage, channelTolerance: Int) {
        self.page = page
        self.channelTolerance = channelTolerance
    }

    /// Opens a blank tab of `browser` to compare pictures in.
    package static func open(in browser: HeadlessChromium, channelTolerance: Int = 0) async throws -> PixelComparer {
        let page = try await browser.newPage()
        return PixelComparer(page: page, channelTolerance: max(0, min(255, channelTolerance)))
    }

    /// Compares two PNG pictures.
    package func compare(before: Data, after: Data) async throws -> Comparison {
        let expression =
            "(\(Self.script))('data:image/png;base64,\(before.base64EncodedString())', "
            + "'data:image/png;base64,\(after.base64EncodedString())', \(channelTolerance))"
        let result: JSONValue
        do {
            result = try await page.evaluate(expression)
        } catch let error as BrowserPage.PageError {
            throw ComparisonError(description: "the browser could not compare the pictures: \(error)")
        }
        guard let differing = result["differing"]?.intValue, let total = result["total"]?.intValue else {
            throw ComparisonError(description: "the browser's comparison gave no counts: \(result.jsonString().prefix(200))")
        }
        var highlight: Data?
        if let url = result["highlight"]?.stringValue, let comma = url.firstIndex(of: ",") {
            highlight = Data(base64Encoded: String(url[url.index(after: comma)...]))
        }
        return Comparison(
            differingPixels: differing, totalPixels: total, sameSize: result["sameSize"] == .bool(true),
            changedRegion: result["region"]?.arrayValue?.compactMap(\.intValue), highlightPNG: highlight)
    }

    /// Closes the tab.
    package func close() async {
        await page.close()
    }

    /// `function (before, after, tolerance)` returning a promise of the counts, region and highlight.
    static let script = """
        function (beforeURL, afterURL, tolerance) {
          function decode(url, which) {
            return new Promise(function (resolve, reject) {
              var image = new Image();
              image.onload = function () { resolve(image); };
              image.onerror = function () { reject(new Error('the ' + which + ' picture is not an image the browser can decode')); };
              image.src = url;
            });
          }
          return Promise.all([decode(beforeURL, 'before'), decode(afterURL, 'after')]).then(function (images) {
            var before = images[0], after = images[1];
            var width = Math.max(before.naturalWidth, after.naturalWidth);
            var height = Math.max(before.naturalHeight, after.naturalHeight);
            function canvasOf(image) {
              var canvas = document.createElement('canvas');
              canvas.width = width; canvas.height = height;
              var context = canvas.getContext('2d', { willReadFrequently: true });
              context.drawImage(image, 0, 0);
              return { canvas: canvas, context: context, pixels: context.getImageData(0, 0, width, height) };
            }
            var a = canvasOf(before), b = canvasOf(after);
            var p = a.pixels.data, q = b.pixels.data;
            var marked = b.context.getImageData(0, 0, width, height);
            var m = marked.data;
            var differing = 0, minX = width, minY = height, maxX = -1, maxY = -1;
            for (var y = 0; y < height; y++) {
              for (var x = 0; x < width; x++) {
                var o = (y * width + x) * 4;
                var outside = x >= before.naturalWidth || y >= before.naturalHeight || x >= after.naturalWidth || y >= after.naturalHeight;
                var delta = Math.max(Math.abs(p[o] - q[o]), Math.abs(p[o + 1] - q[o + 1]), Math.abs(p[o + 2] - q[o + 2]), Math.abs(p[o + 3] - q[o + 3]));
                if (outside || delta > tolerance) {
                  differing++;
                  if (x < minX) { minX = x; } if (x > maxX) { maxX = x; }
                  if (y < minY) { minY = y; } if (y > maxY) { maxY = y; }
                  m[o] = 255; m[o + 1] = 0; m[o + 2] = 0; m[o + 3] = 255;
                } else {
                  var grey = 255 - (255 - (0.3 * m[o] + 0.59 * m[o + 1] + 0.11 * m[o + 2])) * 0.3;
                  m[o] = grey; m[o + 1] = grey; m[o + 2] = grey; m[o + 3] = 255;
                }
              }
            }
            var result = { differing: differing, total: width * height,
                           sameSize: before.naturalWidth === after.naturalWidth && before.naturalHeight === after.naturalHeight,
                           region: null, highlight: null };
            if (differing > 0) {
              b.context.putImageData(marked, 0, 0);
              b.context.strokeStyle = '#d0f';
              b.context.lineWidth = 3;
              b.context.strokeRect(minX - 4, minY - 4, maxX - minX + 9, maxY - minY + 9);
              result.region = [minX, minY, maxX - minX + 1, maxY - minY + 1];
              result.highlight = b.canvas.toDataURL('image/png');
            }
            return result;
          });
        }
        """
}
