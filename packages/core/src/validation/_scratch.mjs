const HEADER_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
const DOMAIN2 = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$/;
function time(label, n, fn) { for (let i = 0; i < 50000; i++) fn(); const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) fn(); console.log(label, (Number(process.hrtime.bigint() - t) / n).toFixed(1), 'ns'); }
const a = 'delivered@example.com';
let sink;
time('unsafe', 1e6, () => sink = HEADER_UNSAFE.test(a));
time('trim regex', 1e6, () => sink = a.replace(/^[ \t]+|[ \t]+$/g, ''));
time('local', 1e6, () => sink = LOCAL_PART.test('delivered'));
time('domain', 1e6, () => sink = DOMAIN.test('example.com'));
time('domain2', 1e6, () => sink = DOMAIN2.test('example.com'));
time('slices', 1e6, () => { const at = a.lastIndexOf('@'); sink = a.indexOf('@') === at && a.slice(0, at).length + a.slice(at+1).length; });
time('obj create null', 1e6, () => { const o = Object.create(null); o['X-Entity-Ref-ID'] = 'x'; sink = o; });
time('obj literal', 1e6, () => { const o = {}; o['X-Entity-Ref-ID'] = 'x'; sink = o; });
time('keys', 1e6, () => { sink = Object.keys({a:1,b:2}); });
