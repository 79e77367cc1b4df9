-- Comments of a trashed post remember the status they had before the post
-- went to the trash (they are then "post-trashed"), so that restoring the
-- post restores them. It is kept apart from pre_trash_status so that a
-- comment that was itself in the trash or spam keeps what untrash and
-- unspam restore.
ALTER TABLE comments ADD COLUMN post_trash_status TEXT NOT NULL DEFAULT '';
