import Hummingbird

/// `GET /fleet/static/fleet.js` and `/fleet/static/kiosk.js` (docs/design/FLEET.md §5.5): open
/// to anyone, they hold no data.
enum FleetStaticRoutes {
    /// Registers the routes.
    static func register(on router: Router<ContentRequestContext>) {
        for (name, source) in [("fleet.js", FleetScript.source), ("kiosk.js", kioskScript)] {
            router.get("fleet/static/\(name)") { _, _ -> Response in
                var headers = HTTPFields()
                headers[.contentType] = "text/javascript; charset=utf-8"
                headers[.cacheControl] = "no-cache"
                headers[.xContentTypeOptions] = "nosniff"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: source)))
            }
        }
    }

    /// The kiosk page's script: reloads the plot every minute.
    static let kioskScript = """
        (function () {
          'use strict';
          var plot = document.getElementById('plot');
          if (!plot) { return; }
          var base = plot.getAttribute('src');
          setInterval(function () { plot.src = base + '?at=' + Date.now(); }, 60000);
        })();
        """
}
