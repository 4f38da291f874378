import Hummingbird

/// `GET /fleet/static/fleet.js` (docs/design/FLEET.md §5.5): open to anyone, it holds no data.
enum FleetStaticRoutes {
    /// Registers the route.
    static func register(on router: Router<ContentRequestContext>) {
        router.get("fleet/static/fleet.js") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/javascript; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            headers[.xContentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: FleetScript.source)))
        }
    }
}
