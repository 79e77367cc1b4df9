-- A page of one author's posts in date order (an author's archive) was
-- found through posts_author (author, type, status) by sorting all of
-- that author's posts of the type and status: about 110 ms for a page of
-- an author with 25,000 posts, ten times that at ten times the posts.
-- With the date and the id after, the index holds each author's posts in
-- the order of the page, which is read in order and no further than its
-- last post; the totals of an author still count in this index alone.
DROP INDEX posts_author;
CREATE INDEX posts_author ON posts (author, type, status, date DESC, id DESC);
