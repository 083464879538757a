ALTER TABLE options ADD COLUMN credit REAL NOT NULL DEFAULT 0;

ALTER TABLE items ADD COLUMN answer_rules TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(answer_rules));

-- PRAGMA 'main'.quick_check='items';

UPDATE items SET
                answer_rules = json_object('accepted', (
                    SELECT json_group_array(json_object('text', value, 'credit', 100.0))
                    FROM json_each(items.provenance, '$.alternative_answers'))),
                provenance = json_remove(provenance, '$.alternative_answers')
            WHERE json_type(provenance, '$.alternative_answers') = 'array';

CREATE TABLE item_media (
                item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                name TEXT NOT NULL,
                mime TEXT NOT NULL,
                data BLOB NOT NULL,
                PRIMARY KEY (item_id, position)
            ) WITHOUT ROWID;

