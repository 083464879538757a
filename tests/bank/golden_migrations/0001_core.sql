CREATE TABLE quizsmith_bank (key TEXT PRIMARY KEY, value TEXT NOT NULL);

PRAGMA application_id = 1364413762;

CREATE TABLE subjects (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);

CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);

CREATE TABLE passages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                title TEXT NOT NULL DEFAULT '',
                subject_id INTEGER REFERENCES subjects(id),
                text TEXT NOT NULL,
                hash TEXT NOT NULL,
                source_file TEXT,
                created TEXT NOT NULL
            );

CREATE INDEX passages_hash ON passages(hash);

CREATE TABLE items (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                type TEXT NOT NULL CHECK (type IN ('mcq', 'tf', 'short', 'cloze')),
                stem TEXT NOT NULL,
                key TEXT NOT NULL,
                target_fact TEXT NOT NULL DEFAULT '',
                passage_id INTEGER REFERENCES passages(id),
                subject_id INTEGER REFERENCES subjects(id),
                status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'accepted', 'rejected', 'needs-review')),
                difficulty TEXT CHECK (difficulty IS NULL OR difficulty IN ('recall', 'understanding', 'application')),
                reference TEXT,
                provenance TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(provenance)),
                created TEXT NOT NULL,
                updated TEXT NOT NULL
            );

CREATE INDEX items_status_subject ON items(status, subject_id);

CREATE INDEX items_subject_status ON items(subject_id, status);

CREATE INDEX items_created ON items(created);

CREATE INDEX items_passage ON items(passage_id);

CREATE TABLE options (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                text TEXT NOT NULL,
                is_key INTEGER NOT NULL CHECK (is_key IN (0, 1)),
                PRIMARY KEY (item_id, position)
            ) WITHOUT ROWID;

CREATE TABLE item_tags (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
                PRIMARY KEY (item_id, tag_id)
            ) WITHOUT ROWID;

CREATE INDEX item_tags_tag ON item_tags(tag_id, item_id);

CREATE TABLE scores (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                metric TEXT NOT NULL,
                value REAL,
                values_json TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(values_json)),
                evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(evidence)),
                model_config TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(model_config)),
                seconds REAL NOT NULL DEFAULT 0,
                not_scored_reason TEXT,
                created TEXT NOT NULL,
                CHECK (not_scored_reason IS NULL OR value IS NULL)
            );

CREATE INDEX scores_item_metric ON scores(item_id, metric, id);

CREATE TABLE flags (
                id INTEGER PRIMARY KEY,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                code TEXT NOT NULL,
                message TEXT NOT NULL DEFAULT '',
                metric TEXT NOT NULL DEFAULT '',
                severity TEXT NOT NULL CHECK (severity IN ('info', 'warning', 'error'))
            );

CREATE INDEX flags_item ON flags(item_id, metric);

CREATE TABLE reviews (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject', 'needs-review')),
                reason TEXT NOT NULL DEFAULT '',
                note TEXT NOT NULL DEFAULT '',
                created TEXT NOT NULL
            );

CREATE INDEX reviews_item ON reviews(item_id, id);

CREATE TABLE quizzes (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                created TEXT NOT NULL
            );

CREATE TABLE quiz_items (
                quiz_id INTEGER NOT NULL REFERENCES quizzes(id) ON DELETE CASCADE,
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                PRIMARY KEY (quiz_id, item_id)
            ) WITHOUT ROWID;

CREATE INDEX quiz_items_item ON quiz_items(item_id);

INSERT INTO quizsmith_bank (key, value) VALUES ('format', 'quizsmith-item-bank'), ('created', '2000-01-01T00:00:00.000000+00:00');

