CREATE TABLE orders (id integer PRIMARY KEY, item text NOT NULL, amount numeric NOT NULL);
INSERT INTO orders SELECT g, 'item ' || g, g * 1.25 FROM generate_series(1, 10000) AS g;
