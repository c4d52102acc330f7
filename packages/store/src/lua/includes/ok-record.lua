-- The transition's reply: {'ok', <the record KEYS[1] as the change left it, flat>}.
return {'ok', unpack(redis.call('HGETALL', KEYS[1]))}
