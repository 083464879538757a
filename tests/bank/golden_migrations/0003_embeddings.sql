CREATE TABLE item_embeddings (
                item_id INTEGER PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
                model TEXT NOT NULL,
                dim INTEGER NOT NULL,
                vector BLOB NOT NULL CHECK (length(vector) = 4 * dim)
            );

CREATE INDEX item_embeddings_model ON item_embeddings(model);

CREATE TRIGGER items_embedding_stale AFTER UPDATE OF stem, key ON items
                WHEN OLD.stem IS NOT NEW.stem OR OLD.key IS NOT NEW.key BEGIN
                DELETE FROM item_embeddings WHERE item_id = NEW.id;
            END;

