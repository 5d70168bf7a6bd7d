-- A store of a schema this reader does not know: its part table has no `data` column (a later
-- migration moved it). The rows are read as far as they can be.
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `body` text NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
INSERT INTO message VALUES ('msg_01', 'ses_x', 1000, 1000, '{"role":"user","time":{"created":1000},"agent":"build","model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}}');
INSERT INTO part VALUES ('prt_01', 'msg_01', 'ses_x', 1000, 1000, '{"type":"text","text":"hello"}');
INSERT INTO session VALUES ('ses_x', 'proj_1', NULL, 'x', '/w', 'Hello', '9.0.0', 1000, 1000);
