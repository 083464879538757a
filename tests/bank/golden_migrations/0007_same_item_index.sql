CREATE INDEX items_same_text ON items(substr(stem, 1, 64), type, substr(key, 1, 32));

