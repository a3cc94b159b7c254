import GRDB

/// The store's tables, one migration per schema version (GRDB's migrator records which ran).
/// A migration once released never changes; a new version adds one.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE peers (
                    id TEXT PRIMARY KEY NOT NULL,           -- instance id, 32 hex digits
                    name TEXT NOT NULL,                     -- the last name it was seen by
                    firstSeen INTEGER NOT NULL,             -- Unix milliseconds
                    lastSeen INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE games (
                    id INTEGER PRIMARY KEY,
                    matchID TEXT NOT NULL,                  -- the accepted invitation's id
                    key TEXT UNIQUE,                        -- the game's id from both rolls (GameKey): what a game is known by
                    number INTEGER NOT NULL,                -- 1 for the match's first game
                    peerID TEXT NOT NULL REFERENCES peers(id),
                    ourID TEXT NOT NULL,
                    rows INTEGER NOT NULL, cols INTEGER NOT NULL, k INTEGER NOT NULL,
                    weMovedFirst INTEGER,                   -- null until the roll decides
                    moveTime INTEGER NOT NULL DEFAULT 0,    -- agreed seconds per move, 0: none
                    startedAt INTEGER NOT NULL,
                    endedAt INTEGER,
                    state TEXT NOT NULL CHECK (state IN ('playing', 'interrupted', 'adjourned', 'finished', 'void')),
                    result TEXT CHECK (result IN ('won', 'lost', 'draw')),
                    ending TEXT                             -- how it ended: line, full, resigned, time, forfeit, ...
                ) STRICT;
                CREATE INDEX games_by_peer ON games(peerID, startedAt);
                CREATE TABLE moves (
                    game INTEGER NOT NULL REFERENCES games(id),
                    number INTEGER NOT NULL,                -- 1 for the game's first move
                    cell INTEGER NOT NULL,                  -- 0-based, row-major
                    byUs INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (game, number)
                ) STRICT, WITHOUT ROWID;
                -- Moves are a log: never rewritten, never removed.
                CREATE TRIGGER moves_append_only_update BEFORE UPDATE ON moves
                    BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END;
                CREATE TRIGGER moves_append_only_delete BEFORE DELETE ON moves
                    BEGIN SELECT RAISE(ABORT, 'moves are append-only'); END;
                """)
        }
        m.registerMigration("v2") { db in
            // v1's CHECK (x IN (...)) makes SQLite 3.40 build a temporary index for every insert
            // or update of a game's state (docs/performance.md, 2026-11-27): the same checks as
            // ORs, the rows as they were. GRDB turns foreign keys off meanwhile
            // (moves keep pointing at the games, by id).
            try db.execute(sql: """
                CREATE TABLE games_v2 (
                    id INTEGER PRIMARY KEY,
                    matchID TEXT NOT NULL,
                    key TEXT UNIQUE,
                    number INTEGER NOT NULL,
                    peerID TEXT NOT NULL REFERENCES peers(id),
                    ourID TEXT NOT NULL,
                    rows INTEGER NOT NULL, cols INTEGER NOT NULL, k INTEGER NOT NULL,
                    weMovedFirst INTEGER,
                    moveTime INTEGER NOT NULL DEFAULT 0,
                    startedAt INTEGER NOT NULL,
                    endedAt INTEGER,
                    state TEXT NOT NULL CHECK (state = 'playing' OR state = 'interrupted' OR state = 'adjourned'
                                               OR state = 'finished' OR state = 'void'),
                    result TEXT CHECK (result = 'won' OR result = 'lost' OR result = 'draw'),
                    ending TEXT
                ) STRICT;
                INSERT INTO games_v2 (id, matchID, key, number, peerID, ourID, rows, cols, k, weMovedFirst, moveTime,
                                      startedAt, endedAt, state, result, ending)
                    SELECT id, matchID, key, number, peerID, ourID, rows, cols, k, weMovedFirst, moveTime,
                           startedAt, endedAt, state, result, ending FROM games;
                DROP TABLE games;
                ALTER TABLE games_v2 RENAME TO games;
                CREATE INDEX games_by_peer ON games(peerID, startedAt);
                """)
        }
        m.registerMigration("v3") { db in
            // A roll whose link was lost before it decided is decided later from these (§13).
            try db.execute(sql: """
                ALTER TABLE games ADD COLUMN secret BLOB;           -- our roll secret (roll || nonce, 20 bytes)
                ALTER TABLE games ADD COLUMN theirCommitment BLOB;  -- the peer's ROLL_COMMIT (32 bytes)
                """)
        }
        m.registerMigration("v4") { db in
            // How far the history's log (HistoryLog) is folded in: its generation and the offset
            // after its last folded record. One row at most.
            try db.execute(sql: "CREATE TABLE logFolded (generation INTEGER NOT NULL, offset INTEGER NOT NULL) STRICT")
        }
        m.registerMigration("v5") { db in
            // The peer's secret, stored before our ROLL_ACK leaves: the peer decides on that ACK (§13).
            try db.execute(sql: "ALTER TABLE games ADD COLUMN theirSecret BLOB")
        }
        return m
    }
}
