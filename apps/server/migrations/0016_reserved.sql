-- Placeholder: this number is reserved for another branch's migration; that file replaces this one.
select 1;
