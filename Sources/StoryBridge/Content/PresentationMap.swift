/// The map of a presentation: for StoryCLM's, the tree rooted at `index.html` built from the
/// slides' links (PROTOCOL.md §4), each slide once, under the first slide that links to it in
/// breadth-first order; for a Veeva or OCE presentation (no links, an order of its own), every
/// other slide under the entry slide, in the presentation's order.
package struct PresentationMap: Sendable, Hashable {
    /// Children of each slide on the map, in the order its links list them.
    package private(set) var children: [String: [String]] = [:]
    /// Each slide's parent on the map (`index.html` has none).
    package private(set) var parents: [String: String] = [:]

    /// Builds the map of a presentation's slides.
    package init(slides: [Slide]) {
        let byName = Dictionary(slides.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        guard byName[Presentation.startSlide] != nil else { return }
        var visited: Set<String> = [Presentation.startSlide]
        var queue = [Presentation.startSlide]
        var head = 0
        while head < queue.count {
            let name = queue[head]
            head += 1
            guard let slide = byName[name] else { continue }
            var linked = slide.metadata.links
            if linked.isEmpty {
                linked = [slide.metadata.swipePrevious, slide.metadata.swipeNext].compactMap { $0 }
            }
            var kids: [String] = []
            for link in linked where byName[link] != nil && !visited.contains(link) {
                visited.insert(link)
                kids.append(link)
                parents[link] = name
                queue.append(link)
            }
            children[name] = kids
        }
    }

    /// The map of a presentation whose order is its own (Veeva key messages, OCE sequences): the
    /// entry slide with every other slide under it, in `ordered`'s order.
    package init(entry: String, ordered: [String]) {
        let rest = ordered.filter { $0 != entry }
        guard ordered.contains(entry) else { return }
        children[entry] = rest
        for name in rest { parents[name] = entry }
    }

    /// The map as `getMap` answers it: `{"slide.html": ["child.html", ...]}`.
    package var json: JSONValue {
        .object(children.mapValues { .array($0.map(JSONValue.string)) })
    }
}

extension Presentation {
    /// The presentation's map.
    package var map: PresentationMap {
        dialect == .storyclm ? PresentationMap(slides: slides) : PresentationMap(entry: entrySlide, ordered: slides.map(\.name))
    }

    /// The slide after (`offset` 1) or before (-1) `slide` in the presentation's order, for a
    /// Veeva or OCE presentation (nil for StoryCLM's, whose neighbours are its swipe meta tags).
    package func neighbour(of slide: String, offset: Int) -> String? {
        guard dialect != .storyclm, let index = slides.firstIndex(where: { $0.name == slide }) else { return nil }
        let other = index + offset
        return slides.indices.contains(other) ? slides[other].name : nil
    }
}
