import { describe, expect, it } from 'vitest';
import { parseMeshFile } from './parse';
import { firstSqlKeyword, sqlStatementRefusal } from './sql-statement';

describe('firstSqlKeyword', () => {
  it.each([
    ['select 1', 'select'],
    ['  \n\tSELECT 1', 'select'],
    ['-- note\nwith t as (select 1) select * from t', 'with'],
    ['/* a /* nested */ comment */ insert into t values (1)', 'insert'],
    ['((select 1))', 'select'],
    ['/* c */ ( /* d */ SET role none)', 'set'],
    ['-- only a comment', ''],
    ['/* unclosed', ''],
    ['', ''],
    ['; set role none', ''],
  ])('%j starts with %j', (query, keyword) => {
    expect(firstSqlKeyword(query)).toBe(keyword);
  });
});

describe('sqlStatementRefusal', () => {
  it.each(['select 1', 'with x as (select 1) select 1', 'insert into t values (1)', 'update t set a = 1', 'delete from t', 'merge into t using s on true when matched then do nothing', 'values (1)', 'table t', 'create table t (a int)', 'alter table t add b int', 'drop table t', 'truncate t', "comment on table t is 'x'", 'explain select 1'])(
    'allows %j',
    (query) => expect(sqlStatementRefusal(query)).toBeNull(),
  );
  it.each([
    'set session authorization trellis_mesh',
    'SET search_path = mesh_data, public',
    'reset all',
    'discard all',
    'begin',
    'start transaction',
    'commit',
    'end',
    'rollback',
    'abort',
    'savepoint a',
    'release a',
    'prepare p as select 1',
    'execute p',
    'deallocate all',
    'declare c cursor for select 1',
    'listen x',
    'unlisten *',
    "notify x, 'y'",
    "load 'plpgsql'",
    'copy t to stdout',
    'do $$ begin end $$',
    'call p()',
    'vacuum',
    'checkpoint',
    'cluster t',
    'reindex table t',
    "security label on table t is 'x'",
    '/* hidden */ (set role none)',
    '-- only a comment',
  ])('refuses %j', (query) => {
    expect(sqlStatementRefusal(query)).toMatch(/^expected one data or schema statement starting with SELECT, WITH, .*; found .* \(statements that change the session or the transaction are not allowed\)$/);
  });
});

describe('the SQL step schema', () => {
  it('refuses a session statement with a finding on the step query', () => {
    const mesh = { format: 'trellis.mesh/v1', name: 'm', members: [{ id: 'f', kind: 'workflow', head: true, steps: [{ type: 'sql', connection: 'trellis', query: 'set session authorization trellis_mesh' }] }], channels: [] };
    const parsed = parseMeshFile(mesh);
    expect(parsed.ok).toBe(false);
    const text = JSON.stringify(parsed);
    expect(text).toContain('query');
    expect(text).toContain('found a SET statement');
  });
});
