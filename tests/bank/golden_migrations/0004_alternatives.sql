ALTER TABLE items ADD COLUMN alternatives TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(alternatives));

-- PRAGMA 'main'.quick_check='items';

