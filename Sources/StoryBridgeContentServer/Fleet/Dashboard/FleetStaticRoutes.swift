import Hummingbird

/// `GET /fleet/static/fleet.js` and `/fleet/static/kiosk.js` (docs/design/FLEET.md §5.5): open
/// to anyone, they hold no data.
enum FleetStaticRoutes {
    /// Registers the routes.
    static func register(on router: Router<ContentRequestContext>) {
        for (name, source) in [("fleet.js", FleetScript.source), ("kiosk.js", FleetKioskScript.source)] {
            router.get("fleet/static/\(name)") { _, _ -> Response in
                var headers = HTTPFields()
                headers[.contentType] = "text/javascript; charset=utf-8"
                headers[.cacheControl] = "no-cache"
                headers[.xContentTypeOptions] = "nosniff"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: source)))
            }
        }
    }
}
