CREATE TABLE item_drafts (
                item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                fields TEXT NOT NULL CHECK (json_valid(fields)),
                saved TEXT NOT NULL
            );

