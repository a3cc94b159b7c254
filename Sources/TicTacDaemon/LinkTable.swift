extension DaemonCore {
    /// The links by id, with the last one looked up kept at hand: a frame, the game actions it
    /// causes, its answer and its deadline each look the same link up, several times in a row
    /// (each lookup in a dictionary hashes the id). Iterating goes through `values`.
    struct LinkTable {
        private var byID: [LinkID: Link] = [:]
        /// The link last looked up or added; never one that has been removed.
        private var last: Link?

        var values: Dictionary<LinkID, Link>.Values { byID.values }
        var keys: Dictionary<LinkID, Link>.Keys { byID.keys }
        var count: Int { byID.count }

        /// The link with this id (mutating: it keeps the one found at hand).
        subscript(id: LinkID) -> Link? {
            mutating get {
                if let last, last.id == id { return last }
                let link = byID[id]
                if link != nil { last = link }
                return link
            }
        }

        /// Adds `link` under its id.
        mutating func insert(_ link: Link) {
            byID[link.id] = link
            last = link
        }

        @discardableResult
        mutating func removeValue(forKey id: LinkID) -> Link? {
            if last?.id == id { last = nil }
            return byID.removeValue(forKey: id)
        }
    }
}
