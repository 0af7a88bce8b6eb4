-- Runs after pgqueue's migrations: the application's migrations may enqueue jobs.
INSERT INTO pgqueue.job (queue, state, payload) VALUES ('seeded', 'ready', '{"from":"app migration"}');
