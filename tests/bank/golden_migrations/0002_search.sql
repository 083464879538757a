CREATE VIRTUAL TABLE items_fts USING fts5(
                stem, key, options, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
            );

-- CREATE TABLE 'main'.'items_fts_data'(id INTEGER PRIMARY KEY, block BLOB);

-- CREATE TABLE 'main'.'items_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

-- REPLACE INTO 'main'.'items_fts_data'(id, block) VALUES(?,?);

-- REPLACE INTO 'main'.'items_fts_data'(id, block) VALUES(?,?);

-- CREATE TABLE 'main'.'items_fts_content'(id INTEGER PRIMARY KEY, c0, c1, c2);

-- CREATE TABLE 'main'.'items_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);

-- CREATE TABLE 'main'.'items_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;

-- REPLACE INTO 'main'.'items_fts_config' VALUES(?,?);

-- PRAGMA 'main'.data_version;

-- SELECT k, v FROM 'main'.'items_fts_config';

CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
                DELETE FROM items_fts WHERE rowid = OLD.id;
            END;

INSERT INTO items_fts (rowid, stem, key, options)
                SELECT i.id, i.stem, i.key, coalesce((
                    SELECT group_concat(text, ' ') FROM (
                        SELECT text FROM options o WHERE o.item_id = i.id ORDER BY position
                    )), '')
                FROM items i;

-- PRAGMA 'main'.data_version;

CREATE VIRTUAL TABLE passages_fts USING fts5(
                title, text, content = 'passages', content_rowid = 'id',
                tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
            );

-- CREATE TABLE 'main'.'passages_fts_data'(id INTEGER PRIMARY KEY, block BLOB);

-- CREATE TABLE 'main'.'passages_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

-- CREATE TABLE 'main'.'passages_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);

-- CREATE TABLE 'main'.'passages_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;

-- REPLACE INTO 'main'.'passages_fts_config' VALUES(?,?);

-- PRAGMA 'main'.data_version;

-- SELECT k, v FROM 'main'.'passages_fts_config';

CREATE TRIGGER passages_fts_insert AFTER INSERT ON passages BEGIN
                INSERT INTO passages_fts (rowid, title, text) VALUES (NEW.id, NEW.title, NEW.text);
            END;

CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
                INSERT INTO passages_fts (passages_fts, rowid, title, text)
                VALUES ('delete', OLD.id, OLD.title, OLD.text);
            END;

CREATE TRIGGER passages_fts_update AFTER UPDATE OF title, text ON passages BEGIN
                INSERT INTO passages_fts (passages_fts, rowid, title, text)
                VALUES ('delete', OLD.id, OLD.title, OLD.text);
                INSERT INTO passages_fts (rowid, title, text) VALUES (NEW.id, NEW.title, NEW.text);
            END;

INSERT INTO passages_fts (passages_fts) VALUES ('rebuild');

-- PRAGMA 'main'.data_version;

-- DELETE FROM 'main'.'passages_fts_data';;

-- DELETE FROM 'main'.'passages_fts_idx';;

-- DELETE FROM 'main'.'passages_fts_docsize';;

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

-- REPLACE INTO 'main'.'passages_fts_config' VALUES(?,?);

-- SELECT T.'id', T.'title', T.'text' FROM 'main'.'passages' AS T;

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

-- REPLACE INTO 'main'.'passages_fts_data'(id, block) VALUES(?,?);

CREATE TABLE latest_scores (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                metric TEXT NOT NULL,
                score_id INTEGER NOT NULL REFERENCES scores(id) ON DELETE CASCADE,
                value REAL,
                PRIMARY KEY (item_id, metric)
            ) WITHOUT ROWID;

CREATE INDEX latest_scores_metric_value ON latest_scores(metric, value);

CREATE INDEX latest_scores_score ON latest_scores(score_id);

CREATE TRIGGER scores_latest AFTER INSERT ON scores BEGIN
                INSERT OR REPLACE INTO latest_scores (item_id, metric, score_id, value)
                VALUES (NEW.item_id, NEW.metric, NEW.id, NEW.value);
            END;

INSERT INTO latest_scores (item_id, metric, score_id, value)
                SELECT item_id, metric, max(id), value FROM scores GROUP BY item_id, metric;

